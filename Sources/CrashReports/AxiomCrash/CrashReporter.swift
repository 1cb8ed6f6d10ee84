import AxiomCore
import CAxiomCrash

#if canImport(Glibc)
import Glibc
#endif

/// Installs the fatal-signal crash reporter and lists the raw reports it wrote.
///
/// Call ``install(directory:afterReport:)`` once, early in `main`, before other threads start. A
/// crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) then writes one raw report
/// into that directory and the process still dies by its original signal, after the
/// handlers that were installed before (the Swift runtime's backtracer among them).
public enum CrashReporter {
    /// Installs the reporter, writing raw reports into `directory`.
    ///
    /// Creates the directory and every missing folder above it with mode 0700 (folders
    /// that exist keep their mode), and checks that it is writable. Also gives the calling thread an alternate
    /// signal stack (so a stack overflow can be reported) and snapshots the loaded
    /// modules. A second call changes nothing and does not throw, whatever directory it
    /// names.
    ///
    /// A stack overflow is reported on every thread created after install, whoever creates it (the Swift
    /// concurrency pool, a C library's workers): linking this module defines `pthread_create` for the whole
    /// executable, and the wrapper makes each new thread give itself an alternate signal stack (64 KiB of address
    /// space and a guard page, touched only when a signal runs on it, released when the thread exits). Threads
    /// that existed before install, other than the calling one, have none: install first thing in `main`, or call
    /// ``prepareCurrentThread()`` on them.
    ///
    /// The wrapper comes with the package's `ThreadWrapper` trait, one of its default traits. An application that
    /// must own `pthread_create` itself, or that wants no symbol of the framework's in front of every thread,
    /// leaves the trait out (`traits: []` on its `.package` line, or its own list without `.defaults`); then
    /// only install's caller and the threads that call ``prepareCurrentThread()`` report their overflows, and
    /// ``preparesNewThreads`` is false.
    ///
    /// `afterReport` says what happens once the report is written: the handlers installed before run next (the
    /// default), or the process dies at once (see ``AfterReport``).
    public static func install(
        directory: String, afterReport: AfterReport = .runPreviousHandlers
    ) throws(CrashReporterError) {
        // A second call changes nothing, this choice included.
        if !isInstalled {
            axiom_crash_set_dies_at_once(afterReport == .dieAtOnce ? 1 : 0)
            // Taken now, not at the crash: the report names the version that crashed, whoever reads it later.
            axiom_crash_set_axiom_version(AxiomVersion.current)
        }
        // So that a failure here, handed to a pipeline, is decided with its fate and texts. Only another source
        // that took the framework's domain names can refuse it.
        try? CrashErrorDomains.register()
        try createPrivateDirectory(directory)
        let result = axiom_crash_install(directory)
        switch result {
        case Int32(AXIOM_CRASH_INSTALLED), Int32(AXIOM_CRASH_ALREADY_INSTALLED):
            return
        case Int32(AXIOM_CRASH_ERROR_DIRECTORY):
            throw CrashReporterError.cannotUseDirectory(path: directory, errno: errno)
        case Int32(AXIOM_CRASH_ERROR_ALTERNATE_STACK):
            throw CrashReporterError.installFailed(step: "alternate signal stack", errno: errno)
        case Int32(AXIOM_CRASH_ERROR_SIGACTION):
            throw CrashReporterError.installFailed(step: "sigaction", errno: errno)
        default:
            throw CrashReporterError.installFailed(step: "module snapshot", errno: errno)
        }
    }

    /// What happens once a crash's report is written.
    public typealias AfterReport = NamedCase<CrashReporter>

    /// Whether threads created after ``install(directory:afterReport:)`` get an alternate signal stack by themselves: true
    /// with the package's `ThreadWrapper` trait (a default trait), false without it and in builds with a
    /// sanitizer, whose runtime owns `pthread_create`.
    public static var preparesNewThreads: Bool { axiom_crash_prepares_new_threads() != 0 }

    /// Creates `path` and every missing folder above it, each with mode 0700 (`mkdir -p`, private to the
    /// user); folders that exist are left as they are. A component that exists and is not a folder is an error
    /// naming it.
    static func createPrivateDirectory(_ path: String) throws(CrashReporterError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) == 0 { continue }
            let failure = errno
            var info = stat()
            guard failure == EEXIST, stat(prefix, &info) == 0 else {
                throw CrashReporterError.cannotCreateDirectory(path: prefix, errno: failure)
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw CrashReporterError.cannotCreateDirectory(path: prefix, errno: ENOTDIR)
            }
        }
    }

    /// Whether ``install(directory:afterReport:)`` has succeeded in this process.
    public static var isInstalled: Bool { axiom_crash_is_installed() != 0 }

    /// Gives the calling thread an alternate signal stack of at least 64 KiB, so a
    /// stack overflow on this thread is reported too. Call it first thing on threads
    /// you create; the stack is released when the thread exits.
    public static func prepareCurrentThread() throws(CrashReporterError) {
        if axiom_crash_prepare_thread() != 0 {
            throw CrashReporterError.cannotPrepareThread(errno: errno)
        }
    }

    /// Re-reads the loaded modules into the list a report falls back on.
    ///
    /// Not needed: a report lists the modules loaded at the moment of the crash, libraries opened with
    /// `dlopen` after ``install(directory:afterReport:)`` included. The list taken at install (or by this call) is used
    /// only if that reading fails.
    package static func refreshModules() {
        _ = axiom_crash_refresh_modules()
    }

    /// The complete raw reports waiting in `directory`, as full paths, oldest name first.
    ///
    /// Files still being written (`.tmp`), or cut short, and the `processed`, `rejected` and `incomplete`
    /// subfolders are left out (``CrashReportProcessor/processPendingReports()`` also reports the `.tmp` files
    /// whose writer is gone, as incomplete). A missing directory has no pending reports.
    package static func pendingReports(in directory: String) throws(CrashReporterError) -> [String] {
        guard let paths = regularFiles(in: directory, suffix: rawReportSuffix) else {
            if errno == ENOENT { return [] }
            throw CrashReporterError.cannotUseDirectory(path: directory, errno: errno)
        }
        return paths
    }

    /// The regular files of `directory` whose names end in `suffix` and do not start with a dot, as full paths,
    /// by name; nil (with `errno` set) when the directory cannot be opened.
    private static func regularFiles(
        in directory: String, suffix: String, where keep: (String) -> Bool = { _ in true }
    ) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasSuffix(suffix), !name.hasPrefix("."), keep(name) else { continue }
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            names.append(name)
        }
        return names.sorted().map { directory + "/" + $0 }
    }

    /// The `.tmp` reports in `directory` whose writer is gone: each a crash whose report was cut short (a full
    /// disk, a folder removed under it), as full paths, oldest name first.
    ///
    /// The handler names a report `crash-<seconds>-<pid>-<tid>-<counter>.axcrash` and writes it as that name
    /// plus `.tmp` first, so the writer's pid and the crash's time are in the name. The writer is gone when no
    /// process has that pid, or when the process that has it now started after the crash (the pid was reused:
    /// a restarted container's pid 1, say). A `.tmp` whose name says neither, or whose writer may still be
    /// writing, is left alone.
    static func abandonedReports(in directory: String) -> [String] {
        regularFiles(in: directory, suffix: rawReportSuffix + ".tmp") { name in
            guard let writer = temporaryReportWriter(name: name) else { return false }
            return !processIsAlive(pid: writer.pid, startedBy: writer.seconds)
        } ?? []
    }

    /// The pid and crash time (seconds since the epoch) in a report's name,
    /// `crash-<seconds>-<pid>-<tid>-<counter>.axcrash[.tmp]`; nil for any other name.
    package static func temporaryReportWriter(name: String) -> (seconds: Int64, pid: Int32)? {
        guard name.hasPrefix("crash-") else { return nil }
        let parts = name.dropFirst("crash-".count).split(separator: ".", maxSplits: 1).first?
            .split(separator: "-", omittingEmptySubsequences: false)
        guard let parts, parts.count == 4, let seconds = Int64(parts[0]), let pid = Int32(parts[1]), pid > 0,
            Int32(parts[2]) != nil, UInt32(parts[3]) != nil
        else { return nil }
        return (seconds, pid)
    }

    /// Whether process `pid` may still be writing a report of the time `seconds` (since the epoch): it exists,
    /// is not a zombie (dead, not yet waited for), and started no later than that. When its state cannot be read,
    /// it is taken to be alive.
    ///
    /// Only this pid namespace's processes are seen: in a folder shared with another namespace (a second
    /// container), a `.tmp` that one of its processes is writing at that very moment would be taken for
    /// abandoned, and one whose pid an unrelated process of this namespace has is left alone until that one ends.
    static func processIsAlive(pid: Int32, startedBy seconds: Int64) -> Bool {
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard let process = processState(pid: pid) else { return true }
        if process.state == "Z" || process.state == "X" { return false }
        // The start is known to the clock tick and the boot time to the second: a margin of two seconds.
        return process.started <= seconds + 2
    }

    /// The state letter of process `pid` (`/proc/<pid>/stat`, field 3) and when it started, in seconds since the
    /// epoch: its start in clock ticks after boot (field 22) plus the boot time (`btime` of `/proc/stat`).
    private static func processState(pid: Int32) -> (state: Substring, started: Int64)? {
        guard let stat = readSmallFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")"),
            let bootLine = readSmallFile("/proc/stat", limit: 1 << 20)?.split(separator: "\n")
                .first(where: { $0.hasPrefix("btime ") }),
            let boot = bootLine.split(separator: " ").last.flatMap({ Int64($0) })
        else { return nil }
        // After the command's closing parenthesis, fields 3 onwards.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 19, let ticks = Int64(fields[19]), ticksPerSecond > 0 else { return nil }
        return (fields[0], boot + ticks / ticksPerSecond)
    }

    private static func readSmallFile(_ path: String, limit: Int = 16384) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        return String(decoding: bytes.prefix(filled), as: UTF8.self)
    }

    /// The file name suffix of a complete raw report.
    package static let rawReportSuffix: String = AXIOM_CRASH_FILE_SUFFIX
}

extension NamedCase where Owner == CrashReporter {
    /// The signal handlers installed before ``CrashReporter/install(directory:afterReport:)`` run next, then the process
    /// dies by its signal. On Linux that is the Swift runtime's backtracer whenever `SWIFT_BACKTRACE` enables
    /// it (its default): it symbolicates the crash in the dying process before it prints, which for a large
    /// executable takes tens of seconds, during which the process is neither serving nor restarted. The
    /// default here, for a program whose crash a person reads on a terminal.
    public static var runPreviousHandlers: Self { Self(name: "runPreviousHandlers") }
    /// The process dies by its signal as soon as the report is written: no earlier handler runs, so a
    /// supervisor (systemd, Kubernetes) restarts it at once. The report is the crash's record; symbolicate it
    /// later, as `AxiomService` does at the next start. The default of `AxiomService`.
    public static var dieAtOnce: Self { Self(name: "dieAtOnce") }
}
