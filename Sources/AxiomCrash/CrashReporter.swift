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
        if !isInstalled { axiom_crash_set_dies_at_once(afterReport == .dieAtOnce ? 1 : 0) }
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
    public enum AfterReport: Sendable, Hashable {
        /// The signal handlers installed before ``install(directory:afterReport:)`` run next, then the process
        /// dies by its signal. On Linux that is the Swift runtime's backtracer whenever `SWIFT_BACKTRACE` enables
        /// it (its default): it symbolicates the crash in the dying process before it prints, which for a large
        /// executable takes tens of seconds, during which the process is neither serving nor restarted. The
        /// default here, for a program whose crash a person reads on a terminal.
        case runPreviousHandlers
        /// The process dies by its signal as soon as the report is written: no earlier handler runs, so a
        /// supervisor (systemd, Kubernetes) restarts it at once. The report is the crash's record; symbolicate it
        /// later, as `AxiomService` does at the next start. The default of `AxiomService`.
        case dieAtOnce
    }

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
    public static func refreshModules() {
        _ = axiom_crash_refresh_modules()
    }

    /// The complete raw reports waiting in `directory`, as full paths, oldest name first.
    ///
    /// Files still being written (`.tmp`) and the `processed` and `rejected` subfolders
    /// are left out. A missing directory has no pending reports.
    public static func pendingReports(in directory: String) throws(CrashReporterError) -> [String] {
        guard let handle = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw CrashReporterError.cannotUseDirectory(path: directory, errno: errno)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasSuffix(rawReportSuffix), !name.hasPrefix(".") else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            names.append(name)
        }
        return names.sorted().map { directory + "/" + $0 }
    }

    /// The file name suffix of a complete raw report.
    public static let rawReportSuffix: String = AXIOM_CRASH_FILE_SUFFIX
}
