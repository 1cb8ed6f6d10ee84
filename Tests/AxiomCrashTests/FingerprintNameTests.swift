import AxiomCrash
import Testing

/// The fingerprint's name rules on demangled names as real reports have them (the crash probe's, the fingerprint
/// tests' application's, the standard library's and glibc's).
@Suite("Crash fingerprint names")
struct FingerprintNameTests {
    @Test(
        "Specialisations, variants, closure numbers, generic arguments and clone suffixes drop out",
        arguments: [
            (
                "generic specialization <Swift.Int> of LedgerApp.total<A where A: Swift.Sequence, A.Element == Swift.Int>(A) -> Swift.Int",
                "LedgerApp.total(A) -> Swift.Int"
            ),
            (
                "function signature specialization <Arg[0] = Owned To Guaranteed> of LedgerApp.validate(_: LedgerApp.Ledger, account: Swift.String) -> Swift.Int",
                "LedgerApp.validate(_: LedgerApp.Ledger, account: Swift.String) -> Swift.Int"
            ),
            (
                "closure #2 in closure #1 in LedgerApp.checkout(_: LedgerApp.Ledger, selected: Swift.Int32) -> Swift.Int",
                "closure in closure in LedgerApp.checkout(_: LedgerApp.Ledger, selected: Swift.Int32) -> Swift.Int"
            ),
            (
                "partial apply for closure #1 in AxiomCrashProbe.main() -> ()",
                "closure in AxiomCrashProbe.main() -> ()"
            ),
            (
                "merged LedgerApp.refund(LedgerApp.Ledger) -> Swift.Int",
                "LedgerApp.refund(LedgerApp.Ledger) -> Swift.Int"
            ),
            (
                "(1) suspend resume partial function for AxiomCrashProbe.asyncInnermost() async -> Swift.Int",
                "AxiomCrashProbe.asyncInnermost() async -> Swift.Int"
            ),
            (
                "(extension in LedgerApp):Swift.Array<A>.total() -> Swift.Int",
                "Swift.Array.total() -> Swift.Int"
            ),
            (
                "generic specialization <LedgerApp.Ledger> of (extension in LedgerApp):Swift.Dictionary<A, B>.owner(for: A) -> B?",
                "Swift.Dictionary.owner(for: A) -> B?"
            ),
            (
                "localName #1 (Swift.Int) -> Swift.Int in LedgerApp.settle()",
                "localName (Swift.Int) -> Swift.Int in LedgerApp.settle()"
            ),
            ("traced_sum.constprop.0", "traced_sum"),
            ("memcpy.cold", "memcpy"),
            ("axiom_probe_null_write", "axiom_probe_null_write"),
            ("__pthread_kill_implementation", "__pthread_kill_implementation"),
        ])
    func normalized(_ name: String, _ expected: String) {
        #expect(FingerprintNames.normalized(name) == expected)
    }

    @Test(
        "The runtime's failure path, libc's abort and the reporter are skipped; the application's functions are not",
        arguments: [
            (
                "Swift._assertionFailure(_: Swift.StaticString, _: Swift.StaticString, file: Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never",
                true
            ),
            (
                "Swift._fatalErrorMessage(_: Swift.StaticString, _: Swift.StaticString, file: Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never",
                true
            ),
            (
                "Swift.fatalError(_: @autoclosure () -> Swift.String, file: Swift.StaticString, line: Swift.UInt) -> Swift.Never",
                true
            ),
            ("_swift_stdlib_reportFatalErrorInFile", true),
            ("swift_runtime_on_report", true),
            ("__pthread_kill_implementation", true),
            ("raise", true),
            ("abort", true),
            ("__restore_rt", true),
            ("outlined copy of Swift.Optional<Swift.String>", true),
            (
                "protocol witness for Swift.Sequence.makeIterator() -> A.Iterator in conformance LedgerApp.Ledger : Swift.Sequence in LedgerApp",
                true
            ),
            ("axiom_crash_handler", true),
            ("LedgerApp.validate(_: LedgerApp.Ledger, account: Swift.String) -> Swift.Int", false),
            ("abortTransaction", false),
            ("fingerprint_app_run", false),
        ])
    func skipped(_ name: String, _ isSkipped: Bool) {
        #expect(FingerprintNames.isSkipped(name) == isSkipped)
    }

    @Test("The standard library's inlined functions are the toolchain's; an application's extension of them is not")
    func toolchainFunctions() {
        #expect(FingerprintNames.isToolchainFunction("Swift.Array.subscript.getter : (Swift.Int) -> A"))
        #expect(
            FingerprintNames.isToolchainFunction(
                "generic specialization <Swift.Int> of Swift.Array._checkSubscript(_: Swift.Int, wasNativeTypeChecked: Swift.Bool) -> Swift._DependenceToken"
            ))
        #expect(FingerprintNames.isToolchainFunction("closure #1 in Swift.Array.map<A>((A) throws -> B) throws -> [B]"))
        #expect(!FingerprintNames.isToolchainFunction("(extension in LedgerApp):Swift.Array<A>.total() -> Swift.Int"))
        #expect(!FingerprintNames.isToolchainFunction("closure #1 in LedgerApp.checkout() -> ()"))
        #expect(!FingerprintNames.isToolchainFunction("SwiftyLedger.total() -> Swift.Int"))
    }

    @Test("The Swift runtime's fatal messages make the kind fatalError; a failed C assert's does not")
    func swiftRuntimeMessages() {
        #expect(
            FingerprintNames.isSwiftRuntimeMessage(
                "LedgerApp/app.swift:10: Fatal error: Unexpectedly found nil while unwrapping an Optional value"))
        #expect(
            FingerprintNames.isSwiftRuntimeMessage(
                "Swift/ContiguousArrayBuffer.swift:691: Fatal error: Index out of range"))
        #expect(FingerprintNames.isSwiftRuntimeMessage("LedgerApp/app.swift:12: Precondition failed: balanced"))
        #expect(
            !FingerprintNames.isSwiftRuntimeMessage(
                "AxiomCrashProbe: axiom_crash_probe.c:173: axiom_probe_assert: Assertion `value == 42' failed."))
    }

    @Test("The hash is FNV-1a 64 over the canonical text, which names the version, the kind and each frame")
    func canonicalTextAndHash() {
        // FNV-1a 64's published test vectors.
        #expect(CrashFingerprint.fnv1a64("") == 0xcbf2_9ce4_8422_2325)
        #expect(CrashFingerprint.fnv1a64("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(CrashFingerprint.fnv1a64("foobar") == 0x8594_4171_f739_67e8)
        let frames = [
            CrashFingerprint.Frame(module: "libLedgerApp.so", identity: .function("LedgerApp.validate() -> ()")),
            CrashFingerprint.Frame(module: "app", identity: .functionStart(0x1a2b)),
            CrashFingerprint.Frame(module: "app", identity: .imageOffset(0x40)),
        ]
        let text = CrashFingerprint.canonicalText(kind: "fatalError", frames: frames)
        #expect(
            text == """
                axiom-crash-fingerprint 1
                kind fatalError
                frame libLedgerApp.so function LedgerApp.validate() -> ()
                frame app function-start 0x1a2b
                frame app image-offset 0x40

                """)
        let fingerprint = CrashFingerprint(kind: "fatalError", frames: frames, isProvisional: true)
        let digits = String(CrashFingerprint.fnv1a64(text), radix: 16)
        #expect(fingerprint.value == String(repeating: "0", count: 16 - digits.count) + digits)
        #expect(fingerprint.version == 1)
    }
}
