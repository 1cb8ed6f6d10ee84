import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the framework's own programs load: the Swift runtime, FoundationEssentials at most, and the system's C
/// libraries. Never Foundation, its internationalization library or ICU, which cost a program tens of megabytes of
/// resident memory and milliseconds of start-up for nothing it uses.
@Suite("Linked libraries")
struct LinkedLibrariesTests {
    /// The libraries none of the framework's programs may load.
    static let heavy = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libicu"]

    /// The shared libraries `ldd` lists for `program`, built beside the test binary, by file name.
    private func libraries(of program: String) throws -> [String] {
        let directory = ChildProcess.probePath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .joined(separator: "/")
        let path = directory + "/" + program
        try #require(access(path, X_OK) == 0, "\(path) is not built")
        // A file of each call's own: the tests run at once, and two of them list the same program (one's output
        // was read empty once, the other test having removed the file they shared).
        let output = "/tmp/axiom-ldd-\(getpid())-\(program)-\(UInt64.random(in: 0 ... .max))"
        defer { unlink(output) }
        let termination = ChildProcess.run("/usr/bin/ldd", [path], stdoutPath: output)
        try #require(termination == Termination(waitStatus: 0), "ldd \(path): \(termination)")
        return ChildProcess.readText(output).split(separator: "\n").compactMap { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        }
    }

    @Test(
        "The axiom tool, the plugin scanner and a program of the runtime and the crash reporter load no Foundation or ICU",
        arguments: ["axiom", "axiom-plugin-scanner", "AxiomCrashProbe"])
    func noFoundation(program: String) throws {
        let loaded = try libraries(of: program)
        #expect(loaded.contains { $0.hasPrefix("libswiftCore.so") }, "ldd listed \(loaded)")
        let heavy = loaded.filter { library in Self.heavy.contains { library.hasPrefix($0) } }
        #expect(heavy.isEmpty, "\(program) loads \(heavy)")
    }

    /// Opened on first use, never at start: libdebuginfod and libcurl (when a debuginfod server is first asked) bring
    /// about thirty shared objects (TLS, Kerberos, LDAP), and libdwarf with libelf and libz (when a module is first
    /// read through libdwarf, which the native reader leaves only compressed debug sections to) three more, which
    /// cost every start their loading and symbol binding.
    static let openedOnUse = ["libdebuginfod.so", "libcurl", "libdwarf.so", "libelf"]

    @Test(
        "The axiom tool and a program of the runtime and the crash reporter start without libdwarf, libdebuginfod or libcurl",
        arguments: ["axiom", "AxiomCrashProbe"])
    func noDebugLibrariesAtStart(program: String) throws {
        let loaded = try libraries(of: program)
        #expect(loaded.contains { $0.hasPrefix("libunwind.so") }, "ldd listed \(loaded)")
        let onUse = loaded.filter { library in Self.openedOnUse.contains { library.hasPrefix($0) } }
        #expect(onUse.isEmpty, "\(program) loads \(onUse) at start")
    }

    @Test("The check sees Foundation where it is loaded: in the test binary, which links the integrations")
    func seesFoundation() throws {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = String(decoding: buffer.prefix(max(0, count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = String(executable.split(separator: "/").last ?? "")
        let loaded = try libraries(of: name)
        #expect(loaded.contains { $0.hasPrefix("libFoundation.so") }, "ldd listed \(loaded)")
    }
}
