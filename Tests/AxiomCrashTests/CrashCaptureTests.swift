import Axiom
import AxiomSymbolication
import Testing

@testable import AxiomCrash

#if canImport(Glibc)
import Glibc
#endif

/// One way for the probe to crash, and what its report must show.
struct CrashCase: CustomTestStringConvertible, Sendable {
    var kind: String
    var signal: Int32
    /// The probe function the crash happens in.
    var function: String
    /// Whether the faulting pc itself lies in `function` (else: some caller frame does).
    var faultsInFunction: Bool
    var threadName: String? = nil
    /// Where the `// crash-line: <marker>` comment of the crash sits.
    var sourceFile = "Tests/CAxiomCrashProbeSupport/axiom_crash_probe.c"
    var marker: String
    /// Lines around the marker the crashing frame may name.
    var lineOffsets: ClosedRange<Int> = 0...0

    /// The crash needs the reporter's alternate stacks on threads it did not prepare (not in sanitizer builds,
    /// where the sanitizer owns pthread_create).
    var needsPreparedNewThreads: Bool { kind == "async-stack-overflow" || kind == "c-thread-stack-overflow" }
    /// Why the cases on threads the reporter did not start cannot run in this build.
    static let unpreparedThreadsUnchecked: Comment =
        "needs CrashReporter.preparesNewThreads (the ThreadWrapper trait, and no sanitizer owning pthread_create)"

    var testDescription: String { kind }
}

/// The cases on threads the reporter prepares itself, checkable in every build.
let crashCases = allCrashCases.filter { !$0.needsPreparedNewThreads }
/// The cases on threads the reporter did not start, checkable only where it prepares new threads.
let crashCasesOnNewThreads = allCrashCases.filter(\.needsPreparedNewThreads)

let allCrashCases: [CrashCase] = [
    // Debug builds report the failure from the standard library, so the unwrap is a caller frame.
    CrashCase(
        kind: "force-unwrap", signal: SIGILL, function: "forceUnwrapNil", faultsInFunction: false,
        sourceFile: "Tests/AxiomCrashProbe/main.swift", marker: "force-unwrap"),
    CrashCase(
        kind: "null-write", signal: SIGSEGV, function: "axiom_probe_null_write", faultsInFunction: true,
        marker: "null-write"),
    CrashCase(kind: "abort", signal: SIGABRT, function: "axiom_probe_abort", faultsInFunction: false, marker: "abort"),
    CrashCase(
        kind: "divide-by-zero", signal: SIGFPE, function: "axiom_probe_divide_by_zero", faultsInFunction: true,
        marker: "divide-by-zero"),
    CrashCase(
        kind: "bus-error", signal: SIGBUS, function: "axiom_probe_bus_error", faultsInFunction: true,
        marker: "bus-error"),
    CrashCase(kind: "trap", signal: SIGILL, function: "axiom_probe_trap", faultsInFunction: true, marker: "trap"),
    // int3 is a trap, not a fault: the reported pc is the instruction after it.
    CrashCase(
        kind: "breakpoint", signal: SIGTRAP, function: "axiom_probe_breakpoint", faultsInFunction: true,
        marker: "breakpoint", lineOffsets: 0...1),
    // The overflow faults either pushing the return address (at the recursive call) or
    // in the callee's prologue (its first lines).
    CrashCase(
        kind: "stack-overflow", signal: SIGSEGV, function: "axiom_probe_recurse", faultsInFunction: true,
        marker: "recurse", lineOffsets: -5...0),
    CrashCase(
        kind: "thread-stack-overflow", signal: SIGSEGV, function: "axiom_probe_recurse", faultsInFunction: true,
        threadName: "probe-overflow", marker: "recurse", lineOffsets: -5...0),
    CrashCase(
        kind: "two-threads", signal: SIGSEGV, function: "axiom_probe_thread_crash", faultsInFunction: true,
        marker: "thread-crash"),
    // The runtime's message is in the report (CrashBlindSpotTests checks it).
    CrashCase(
        kind: "fatal-error", signal: SIGILL, function: "fatalErrorWithMessage", faultsInFunction: false,
        sourceFile: "Tests/AxiomCrashProbe/main.swift", marker: "fatal-error"),
    CrashCase(
        kind: "index-out-of-range", signal: SIGILL, function: "indexOutOfRange", faultsInFunction: false,
        sourceFile: "Tests/AxiomCrashProbe/main.swift", marker: "index-out-of-range"),
    CrashCase(
        kind: "assert", signal: SIGABRT, function: "axiom_probe_assert", faultsInFunction: false, marker: "assert"),
    // The fault is inside libbz2, opened after install; the probe's frame is a caller.
    CrashCase(
        kind: "dlopen-late", signal: SIGSEGV, function: "axiom_probe_crash_in_late_library", faultsInFunction: false,
        marker: "late-library"),
    CrashCase(
        kind: "threads", signal: SIGSEGV, function: "axiom_probe_null_write", faultsInFunction: true,
        marker: "null-write"),
    // Threads nobody prepared: the reporter gives every thread created after install an alternate stack.
    CrashCase(
        kind: "async-stack-overflow", signal: SIGSEGV, function: "axiom_probe_recurse", faultsInFunction: true,
        marker: "recurse", lineOffsets: -5...0),
    CrashCase(
        kind: "c-thread-stack-overflow", signal: SIGSEGV, function: "axiom_probe_recurse", faultsInFunction: true,
        threadName: "probe-c-thread", marker: "recurse", lineOffsets: -5...0),
    CrashCase(
        kind: "recent-errors", signal: SIGSEGV, function: "axiom_probe_null_write", faultsInFunction: true,
        marker: "null-write"),
]

@Suite("Crash capture in a child process")
struct CrashCaptureTests {
    /// The probe's function symbols from its ELF symbol table, sorted by address.
    static let probeSymbols = try? Symbolicator().functionSymbols(modulePath: ChildProcess.probePath)

    @Test(arguments: crashCases)
    func crashWritesReportAndDiesBySignal(_ crash: CrashCase) throws {
        try checkReportAndDeath(crash)
    }

    @Test(
        .enabled(if: CrashReporter.preparesNewThreads, CrashCase.unpreparedThreadsUnchecked),
        arguments: crashCasesOnNewThreads)
    func crashOnANewThreadWritesReportAndDiesBySignal(_ crash: CrashCase) throws {
        try checkReportAndDeath(crash)
    }

    func checkReportAndDeath(_ crash: CrashCase) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: crash.kind)
        #expect(termination.signal == crash.signal, "child \(termination); stderr: \(stderr)")

        let pending = try CrashReporter.pendingReports(in: directory.path)
        // One report per process: a second crashing thread waits for the first.
        try #require(pending.count == 1, "reports: \(pending)")
        #expect(!directoryEntries(directory.path).contains { $0.name.hasSuffix(".tmp") })
        let report = try RawCrashReport(contentsOf: pending[0])
        #expect(report.signal == crash.signal)
        #expect(report.architecture == "x86_64")
        #expect(report.registers.count == 18)
        #expect(report.register(named: "rip") == report.frames.first)
        #expect(!report.unwindFailed)
        #expect(report.timestamp.seconds > 1_600_000_000)
        if let threadName = crash.threadName {
            #expect(report.threadName == threadName)
            #expect(report.tid != report.pid)
        }

        let executable = try #require(report.modules.first)
        #expect(executable.path.hasSuffix("/AxiomCrashProbe"))
        #expect(executable.buildID.count >= 8)
        let functions = frameFunctions(report, in: executable)
        if crash.faultsInFunction {
            #expect(functions.first == crash.function, "frames: \(functions)")
        } else {
            #expect(functions.contains { $0?.contains(crash.function) == true }, "frames: \(functions)")
        }
    }

    @Test func faultDetailsMatchTheFault() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = ChildProcess.runProbe(directory: directory.path, kind: "null-write")
        let report = try RawCrashReport(
            contentsOf: try #require(CrashReporter.pendingReports(in: directory.path).first))
        #expect(report.faultAddress == 0)
        #expect(report.code == 1)  // SEGV_MAPERR
        #expect(report.tid == report.pid)
        #expect(report.threadName == "AxiomCrashProbe")
    }

    @Test func stackOverflowKeepsTheInnermostFrames() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = ChildProcess.runProbe(directory: directory.path, kind: "stack-overflow")
        let report = try RawCrashReport(
            contentsOf: try #require(CrashReporter.pendingReports(in: directory.path).first))
        #expect(report.frames.count == 256)
        #expect(report.framesTruncated)
        let executable = try #require(report.modules.first)
        let functions = frameFunctions(report, in: executable)
        #expect(functions.allSatisfy { $0 == "axiom_probe_recurse" }, "frames: \(functions)")
    }

    /// With the Swift runtime's backtracer on, it still runs after our handler.
    @Test(
        .disabled(
            if: Sanitizers.any,
            """
            under a sanitizer the Swift runtime's backtracer, which our handler chains to, trips the child's \
            sanitizer runtime before it prints (TSan: CHECK failed in tsan_rtl.cpp; ASan: the child exits)
            """))
    func chainsToTheSwiftBacktracer() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (termination, stderr) = ChildProcess.runProbe(
            directory: directory.path, kind: "null-write",
            swiftBacktrace: "enable=yes,interactive=no,color=no")
        #expect(termination.signal == SIGSEGV)
        #expect(stderr.contains("Program crashed"), "stderr: \(stderr)")
        #expect(stderr.contains("axiom_probe_null_write"))
        let pending = try CrashReporter.pendingReports(in: directory.path)
        #expect(pending.count == 1)
        #expect(try RawCrashReport(contentsOf: try #require(pending.first)).signal == SIGSEGV)
    }

    /// `AfterReport.dieAtOnce`: the report is written and the process dies by its signal, without running the
    /// Swift backtracer that `SWIFT_BACKTRACE` enabled (which would symbolicate in the dying process first).
    @Test(
        .disabled(
            if: Sanitizers.any,
            "the Swift backtracer, enabled in the child, trips its sanitizer runtime (see chainsToTheSwiftBacktracer)"))
    func diesAtOnceWithoutTheSwiftBacktracer() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (termination, stderr) = ChildProcess.runProbe(
            directory: directory.path, kind: "null-write", swiftBacktrace: "enable=yes,interactive=no,color=no",
            environment: ["AXIOM_PROBE_DIE_AT_ONCE=1"])
        #expect(termination.signal == SIGSEGV)
        #expect(!stderr.contains("Program crashed"), "stderr: \(stderr)")
        let pending = try CrashReporter.pendingReports(in: directory.path)
        #expect(pending.count == 1)
        #expect(try RawCrashReport(contentsOf: try #require(pending.first)).signal == SIGSEGV)
    }

    @Test func refreshedModulesIncludeLibrariesOpenedLater() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: "dlopen-refresh")
        #expect(termination.signal == SIGSEGV, "child \(termination); stderr: \(stderr)")
        let report = try RawCrashReport(
            contentsOf: try #require(CrashReporter.pendingReports(in: directory.path).first))
        #expect(report.modules.contains { $0.path.hasSuffix("/libbz2.so.1.0") })
        #expect(report.modules.first?.path.hasSuffix("/AxiomCrashProbe") == true)
    }

    @Test func installingIntoAnUnusableDirectoryFailsClearly() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(writeFile(directory.path + "/file", [0x78]))
        let (termination, stderr) = ChildProcess.runProbe(
            directory: directory.path + "/file/reports", kind: "none", stderrPath: directory.path + "/stderr")
        #expect(termination.exitCode == 3)
        #expect(stderr.contains("cannot create crash report directory"), "stderr: \(stderr)")
    }

    @Test func installCreatesTheDirectoryPrivate() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let reports = directory.path + "/reports"
        let (termination, _) = ChildProcess.runProbe(directory: reports, kind: "none")
        #expect(termination.exitCode == 0)
        var info = stat()
        #expect(stat(reports, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(try CrashReporter.pendingReports(in: reports).isEmpty)
    }

    /// The README's `/var/lib/myapp/crashes` when `/var/lib/myapp` does not exist yet: every missing folder
    /// is made, private to the user; one that exists keeps its mode.
    @Test func installCreatesTheWholePathPrivate() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(chmod(directory.path, 0o755) == 0)
        let reports = directory.path + "/var/lib/myapp/crashes"
        let (termination, _) = ChildProcess.runProbe(
            directory: reports, kind: "none", stderrPath: directory.path + "/stderr")
        #expect(termination.exitCode == 0)
        for folder in ["/var", "/var/lib", "/var/lib/myapp", "/var/lib/myapp/crashes"] {
            var info = stat()
            #expect(stat(directory.path + folder, &info) == 0, "\(folder)")
            #expect(info.st_mode & 0o777 == 0o700, "\(folder)")
        }
        var parent = stat()
        #expect(stat(directory.path, &parent) == 0)
        #expect(parent.st_mode & 0o777 == 0o755, "a folder that existed keeps its mode")
        #expect(try CrashReporter.pendingReports(in: reports).isEmpty)
    }

    @Test func installRefusesAPathThroughAFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(writeFile(directory.path + "/file", [0x78]))
        #expect(throws: CrashReporterError.self) {
            try CrashReporter.createPrivateDirectory(directory.path + "/file/crashes")
        }
        do {
            try CrashReporter.createPrivateDirectory(directory.path + "/file/crashes")
        } catch {
            #expect(error.errno == ENOTDIR)
            #expect(error.description.contains(directory.path + "/file"))
        }
    }

    /// The probe function each frame lies in; the first frame is the faulting pc, the
    /// others are return addresses (looked up one byte earlier).
    func frameFunctions(_ report: RawCrashReport, in executable: RawCrashReport.Module) -> [String?] {
        report.frames.enumerated().map { index, pc in
            guard executable.contains(pc), let symbols = Self.probeSymbols else { return nil }
            let address = pc - executable.bias - (index == 0 ? 0 : 1)
            return symbols.first { $0.address <= address && address < $0.address + $0.size }?.name
        }
    }
}
