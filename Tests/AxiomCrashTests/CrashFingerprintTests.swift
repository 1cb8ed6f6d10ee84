import AxiomCrash
import AxiomSymbolication
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real crashes of one application built several ways: the crash probe opens a Swift library built here with
/// `swiftc` (debug and release, with and without an unrelated function that moves every address) and calls it, and
/// the library crashes with one of its bugs. One bug has one fingerprint whatever the build; two bugs have two.
@Suite("Crash fingerprints: one per bug, whatever the build")
struct CrashFingerprintTests {
    /// The application: three bugs (a force unwrap of nil, an index out of range, a `fatalError`), reached from
    /// `fingerprint_app_run`'s selector: 0 and 1 reach the force unwrap in `validate` from two callers, 2 and 3 the
    /// index out of range in `balance` with two indices, 4 and 5 the `fatalError` in `settle` with two messages.
    /// `UNRELATED` adds a function before them all, so that every address moves.
    static let source = """
        #if UNRELATED
        public func unrelatedReport(_ values: [Int]) -> String {
            var text = ""
            for value in values.sorted() where value % 3 != 0 { text += "\\(value * value), " }
            return text + values.map { String($0, radix: 16) }.joined(separator: ":")
        }
        #endif

        struct Ledger {
            var balances: [Int]
            var owners: [String: String]
        }

        func validate(_ ledger: Ledger, account: String) -> Int {
            let owner = ledger.owners[account]
            return owner!.count
        }

        func balance(_ ledger: Ledger, at index: Int) -> Int {
            ledger.balances[index]
        }

        func settle(_ ledger: Ledger, account: Int) -> Int {
            if ledger.balances.reduce(0, +) != 42 { fatalError("the ledger is inconsistent (account \\(account))") }
            return account
        }

        func checkout(_ ledger: Ledger, selected: Int32) -> Int {
            switch selected {
            case 0: return validate(ledger, account: "mallory") + 1
            case 2: return balance(ledger, at: 9) + 1
            case 3: return balance(ledger, at: 12) + 1
            case 4: return settle(ledger, account: 42) + 1
            case 5: return settle(ledger, account: 7) + 1
            default: return 0
            }
        }

        func refund(_ ledger: Ledger) -> Int {
            validate(ledger, account: "mallory") + 2
        }

        @_cdecl("fingerprint_app_run")
        public func fingerprintAppRun(_ selected: Int32) -> Int32 {
            let ledger = Ledger(balances: [1, 2, 3], owners: ["alice": "Alice"])
            let result = selected == 1 ? refund(ledger) : checkout(ledger, selected: selected)
            return Int32(truncatingIfNeeded: result)
        }
        """

    /// The library's file name in every build: its module name in a fingerprint.
    static let libraryName = "libLedgerApp.so"

    /// The toolchain's `swiftc`: beside the first `swift` on `PATH`, else in Swift's Linux images' place.
    static let swiftc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates =
            path.split(separator: ":").map { "\($0)/swiftc" } + ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static var swiftcAvailable: Bool { swiftc != nil }

    /// One build of the application.
    enum Build: String, CaseIterable, CustomStringConvertible {
        case debug, debugMoved, release, releaseMoved

        var optimized: Bool { self == .release || self == .releaseMoved }
        var moved: Bool { self == .debugMoved || self == .releaseMoved }
        var description: String { rawValue }
    }

    /// `swiftc`'s arguments for `build`, but the source file and the output.
    static func arguments(_ build: Build) -> [String] {
        ["-emit-library", "-module-name", "LedgerApp", "-g", build.optimized ? "-O" : "-Onone"]
            + (build.moved ? ["-DUNRELATED"] : [])
    }

    /// Where the builds are kept: a folder of the temporary directory named by what they are built from (the
    /// source, each build's arguments, and the compiler, by its path, size and modification time), so a change to
    /// any of them builds again.
    static let buildsFolder: String? = {
        guard let swiftc else { return nil }
        let compiler = URL(fileURLWithPath: swiftc).resolvingSymlinksInPath().path
        let attributes = try? FileManager.default.attributesOfItem(atPath: compiler)
        let recipe =
            [source, compiler, "\(attributes?[.size] ?? 0)", "\(attributes?[.modificationDate] ?? 0)"]
            + Build.allCases.map { arguments($0).joined(separator: " ") }
        // The fingerprint's own hash (FNV-1a, 64 bits): it names the recipe, it guards nothing.
        let hash = CrashFingerprint.fnv1a64(recipe.joined(separator: "\0"))
        return FileManager.default.temporaryDirectory.path + "/axiom-ledger-app-" + String(hash, radix: 16)
    }()

    /// The application built as `build` (`<build>/libLedgerApp.so` with DWARF, under ``buildsFolder``), compiled the
    /// first time it is asked for and kept. The suite's tests ask for the same four builds ten times, and CI runs the
    /// suite three times (plainly, then under each sanitizer, two processes at once): each build is compiled once.
    /// A lock on the folder makes a process or test that asks while another compiles wait for it; a build is renamed
    /// into place whole, so a compile that was cut off leaves nothing that looks built.
    static func build(_ build: Build) throws -> String {
        let swiftc = try #require(swiftc)
        let folder = try #require(buildsFolder) + "/" + build.rawValue
        let library = folder + "/" + libraryName
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let lock = open(folder + "/.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        try #require(lock >= 0, "cannot open \(folder)/.lock: errno \(errno)")
        defer { close(lock) }  // which releases the lock
        try #require(flock(lock, LOCK_EX) == 0, "cannot lock \(folder)/.lock: errno \(errno)")
        if FileManager.default.fileExists(atPath: library) { return library }
        try source.write(toFile: folder + "/LedgerApp.swift", atomically: false, encoding: .utf8)
        let partial = library + ".partial"
        let arguments = arguments(build) + [folder + "/LedgerApp.swift", "-o", partial]
        try ChildProcess.runSucceeding(swiftc, arguments, log: folder + "/swiftc.stderr")
        try #require(rename(partial, library) == 0, "cannot rename \(partial): errno \(errno)")
        return library
    }

    /// Crashes the probe in `library` with `selector` and returns the raw report.
    static func crash(library: String, selector: Int, in directory: String) throws -> RawCrashReport {
        let reports = directory + "/reports-\(selector)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        let (termination, stderr) = ChildProcess.runProbe(
            directory: reports, kind: "app-library", stderrPath: reports + ".stderr",
            environment: ["AXIOM_PROBE_APP_LIBRARY=\(library)", "AXIOM_PROBE_APP_CASE=\(selector)"])
        try #require(termination.signal != nil, "\(termination): \(stderr)")
        let path = try #require(try CrashReporter.pendingReports(in: reports).first)
        return try RawCrashReport(contentsOf: path)
    }

    /// Symbolicated with the debug info the modules' files carry, and nothing else.
    static func symbolicated(
        _ raw: RawCrashReport, search: DebugInfoSearch = .init(debugRoots: [], symbolStores: [])
    )
        -> SymbolicatedCrashReport
    {
        SymbolicatedCrashReport(raw: raw, symbolicator: Symbolicator(search: search))
    }

    /// The fingerprint's frames as `module function` lines, for messages.
    static func describe(_ fingerprint: CrashFingerprint) -> String {
        fingerprint.value + " " + fingerprint.kind + "\n"
            + CrashFingerprint.canonicalText(kind: fingerprint.kind, frames: fingerprint.frames)
    }

    @Test(
        "One bug in four builds (debug, release, each with every address moved) has one final fingerprint",
        .enabled(if: swiftcAvailable, "needs the toolchain's swiftc"))
    func sameBugAcrossBuilds() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var fingerprints: [Build: CrashFingerprint] = [:]
        var validateOffsets: [Build: UInt64] = [:]
        for build in Build.allCases {
            let library = try Self.build(build)
            let report = Self.symbolicated(try Self.crash(library: library, selector: 0, in: directory.path))
            fingerprints[build] = report.fingerprint
            validateOffsets[build] = report.frames.first { $0.image == Self.libraryName }?.imageOffset
        }
        // The unrelated function moved the crash's address in the library.
        #expect(validateOffsets[.debug] != validateOffsets[.debugMoved], "\(validateOffsets)")
        #expect(validateOffsets[.release] != validateOffsets[.releaseMoved], "\(validateOffsets)")
        let debug = try #require(fingerprints[.debug])
        #expect(!debug.isProvisional)
        #expect(debug.version == 1)
        #expect(debug.kind == "fatalError")
        let functions = debug.frames.map { "\($0.module) \($0.identity)" }
        #expect(functions.first?.contains("LedgerApp.validate(") == true, "\(Self.describe(debug))")
        #expect(functions.dropFirst().first?.contains("LedgerApp.checkout(") == true, "\(Self.describe(debug))")
        for build in Build.allCases {
            let fingerprint = try #require(fingerprints[build])
            #expect(
                fingerprint == debug, "\(build):\n\(Self.describe(fingerprint))\ndebug:\n\(Self.describe(debug))")
        }
    }

    @Test(
        "One function crashing from two callers is two bugs: the frames above the crashing function count",
        .enabled(if: swiftcAvailable, "needs the toolchain's swiftc"), arguments: [Build.debug, .release])
    func sameFunctionTwoCallers(_ build: Build) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let library = try Self.build(build)
        let fromCheckout = Self.symbolicated(try Self.crash(library: library, selector: 0, in: directory.path))
        let fromRefund = Self.symbolicated(try Self.crash(library: library, selector: 1, in: directory.path))
        let first = fromCheckout.fingerprint
        let second = fromRefund.fingerprint
        #expect(first.value != second.value, "\(Self.describe(first))\n\(Self.describe(second))")
        // The crashing function itself is the same.
        #expect(first.frames.first == second.frames.first, "\(Self.describe(first))\n\(Self.describe(second))")
    }

    @Test(
        "A force unwrap, an index out of range and a fatalError group by the application's frame, not the runtime's",
        .enabled(if: swiftcAvailable, "needs the toolchain's swiftc"), arguments: [Build.debug, .release])
    func runtimeFailuresGroupByApplicationFrame(_ build: Build) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let library = try Self.build(build)
        var reports: [Int: SymbolicatedCrashReport] = [:]
        for selector in [0, 2, 3, 4, 5] {
            reports[selector] = Self.symbolicated(
                try Self.crash(library: library, selector: selector, in: directory.path))
        }
        let fingerprints = reports.mapValues(\.fingerprint)
        let summary = fingerprints.sorted { $0.key < $1.key }.map { "\($0.key): \(Self.describe($0.value))" }
            .joined(separator: "\n")
        // Three crash sites, three fingerprints.
        #expect(Set([0, 2, 4].compactMap { fingerprints[$0]?.value }).count == 3, "\(summary)")
        // The same site reached with other data (another index, another message) is the same bug.
        #expect(fingerprints[2] == fingerprints[3], "\(summary)")
        #expect(fingerprints[4] == fingerprints[5], "\(summary)")
        let expected = [0: "LedgerApp.validate(", 2: "LedgerApp.balance(", 4: "LedgerApp.settle("]
        for (selector, function) in expected {
            let fingerprint = try #require(fingerprints[selector])
            #expect(fingerprint.kind == "fatalError", "\(summary)")
            // The innermost frame is the application's, not the runtime's failure path nor the C library's abort.
            guard case .function(let name) = fingerprint.frames.first?.identity else {
                Issue.record("no function first: \(summary)")
                continue
            }
            #expect(name.hasPrefix(function), "\(selector): \(summary)")
            #expect(fingerprint.frames.first?.module == Self.libraryName)
        }
    }

    @Test(
        "A stripped library's report has a provisional fingerprint; symbolicated with its debug file, the final one",
        .enabled(if: swiftcAvailable, "needs the toolchain's swiftc"), arguments: [Build.debug, .release])
    func strippedThenSymbolicated(_ build: Build) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let unstripped = try Self.build(build)
        let expected = Self.symbolicated(try Self.crash(library: unstripped, selector: 0, in: directory.path))
            .fingerprint
        #expect(!expected.isProvisional)

        // The same library as a deployment ships it: stripped by `axiom symbols add`, its DWARF in a store.
        let shipped = directory.path + "/shipped/" + Self.libraryName
        let store = directory.path + "/store"
        try FileManager.default.createDirectory(atPath: directory.path + "/shipped", withIntermediateDirectories: true)
        try #require(ChildProcess.run("/bin/cp", [unstripped, shipped], stdoutPath: "/dev/null") == .exited(0))
        let added = ChildProcess.runAxiom(["symbols", "add", shipped, "--store", store], outputIn: directory.path)
        try #require(added.termination.exitCode == 0, "axiom symbols add: \(added.stderr)")
        #expect(!elfHasDWARF(path: shipped))
        // Only the store has the debug file: the crashing machine has none.
        unlink(shipped + ".debug")

        let raw = try Self.crash(library: shipped, selector: 0, in: directory.path)
        let provisional = Self.symbolicated(raw).fingerprint
        #expect(provisional.isProvisional, "\(Self.describe(provisional))")
        #expect(provisional.value != expected.value)
        #expect(
            provisional.frames.contains { $0.module == Self.libraryName && !Self.isFunction($0.identity) },
            "\(Self.describe(provisional))")
        // A second crash of the same stripped build groups with the first.
        let again = Self.symbolicated(try Self.crash(library: shipped, selector: 0, in: directory.path)).fingerprint
        #expect(again == provisional, "\(Self.describe(again))\n\(Self.describe(provisional))")

        // The same raw report, processed again with the symbol store: the final fingerprint of the unstripped build.
        let final = Self.symbolicated(raw, search: DebugInfoSearch(debugRoots: [], symbolStores: [store]))
        #expect(try final.debugInfo[shipped]?.get().source == .symbolStore)
        #expect(!final.fingerprint.isProvisional)
        #expect(final.fingerprint == expected, "\(Self.describe(final.fingerprint))\n\(Self.describe(expected))")
        // Both forms say which fingerprint a report has.
        #expect(
            final.json.contains(#""fingerprint": {"value": "\#(expected.value)", "version": 1, "provisional": false"#))
        let provisionalJSON = Self.symbolicated(raw).json
        #expect(provisionalJSON.contains(#""value": "\#(provisional.value)", "version": 1, "provisional": true"#))
        #expect(final.text.contains("Fingerprint: \(expected.value) (version 1)\n"))
        #expect(Self.symbolicated(raw).text.contains("Fingerprint: \(provisional.value) (version 1, provisional"))
    }

    static func isFunction(_ identity: CrashFingerprint.Frame.Identity) -> Bool {
        if case .function = identity { return true }
        return false
    }
}
