import AxiomCore
import CAxiomPluginScan

#if canImport(Glibc)
import Glibc
#endif

/// How a ``PluginHost`` runs a plugin's code for the first time: in a scanner child process (the default), or in its
/// own process (an explicit opt-in, for tests and benchmarks).
///
/// Out of process, the scanner calls the plugin's entry and sends the catalog back as plain data; the host registers
/// that and never maps the plugin itself, so no code of a plugin ever runs in the host. Each verdict is cached on
/// disk (see `cacheDirectory`), so a start with unchanged plugins starts no scanner.
///
/// The scanner is the host's own executable unless a separate one is found: an application that links
/// `AxiomPlugins` needs nothing else. The host starts `/proc/self/exe` again with the argument
/// `--axiom-plugin-scan`, and a constructor of `AxiomPlugins` runs the scan before the application's `main`, which
/// never runs in the scanner (the constructors of the libraries the executable loads do). An application may ship
/// the `axiom-plugin-scanner` executable beside its own (or name it, see `scannerPath`) for a smaller process,
/// which loads only what a scan needs; it is then used instead. A host whose executable does not load
/// `AxiomPlugins` at start (a program that loads it later with `dlopen`, as an interpreter does) has no such
/// constructor in its executable, and needs the separate scanner.
public struct PluginVetting: Sendable {
    /// Where the plugin's code runs.
    public typealias Mode = NamedCase<PluginVetting>

    /// Where the plugin's code runs.
    package var mode: Mode
    /// The separate scanner executable, when the application puts it somewhere else than beside its executable: it
    /// is then the only scanner (a plugin is refused with `scannerUnavailable` when it is missing). Nil: the
    /// `axiom-plugin-scanner` beside the running executable, else the one `AXIOM_PLUGIN_SCANNER` names (read with
    /// `secure_getenv`), else the host's own executable.
    package var scannerPath: String?
    /// Whether a separate `axiom-plugin-scanner` is used when one is found (the default). False: the host's own
    /// executable is always the scanner, and `scannerPath` is not read.
    package var usesSeparateScanner: Bool
    /// How long the scanner may take for one plugin before it is killed and the plugin refused.
    package var timeout: Duration
    /// The directory of the verdict cache, or nil for no cache (every start scans every plugin).
    package var cacheDirectory: String?

    /// Creates a vetting configuration.
    ///
    /// - Parameters:
    ///   - mode: where the plugin's code runs.
    ///   - scannerPath: the separate scanner executable, when the application puts it somewhere else than beside its
    ///     executable: it is then the only scanner (a plugin is refused with `scannerUnavailable` when it is missing).
    ///     Nil: the `axiom-plugin-scanner` beside the running executable, else the one `AXIOM_PLUGIN_SCANNER` names (read
    ///     with `secure_getenv`), else the host's own executable.
    ///   - usesSeparateScanner: whether a separate `axiom-plugin-scanner` is used when one is found (the default).
    ///     False: the host's own executable is always the scanner, and `scannerPath` is not read.
    ///   - timeout: how long the scanner may take for one plugin before it is killed and the plugin refused.
    ///   - cacheDirectory: the directory of the verdict cache, or nil for no cache (every start scans every plugin).
    public init(
        mode: Mode = .scanner, scannerPath: String? = nil, usesSeparateScanner: Bool = true,
        timeout: Duration = .seconds(5), cacheDirectory: String? = PluginVetting.standardCacheDirectory
    ) {
        self.mode = mode
        self.scannerPath = scannerPath
        self.usesSeparateScanner = usesSeparateScanner
        self.timeout = timeout
        self.cacheDirectory = cacheDirectory
    }

    /// The default: the `axiom-plugin-scanner` beside the executable if there is one, else the host's own
    /// executable; five seconds per plugin; the standard cache.
    public static var standard: PluginVetting { PluginVetting() }

    /// Plugins run in the host, uncached: the loader as it was before the scanner. Never the default.
    public static var inProcess: PluginVetting { PluginVetting(mode: .inProcess, cacheDirectory: nil) }

    /// `AXIOM_PLUGIN_CACHE` if set, else `$XDG_CACHE_HOME/axiom/plugin-verdicts`, else
    /// `$HOME/.cache/axiom/plugin-verdicts`; nil (no cache) when none is set. All read with `secure_getenv`, and
    /// only absolute paths are taken.
    public static var standardCacheDirectory: String? {
        if let explicit = secureEnvironment("AXIOM_PLUGIN_CACHE"), explicit.hasPrefix("/") { return explicit }
        if let cache = secureEnvironment("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            return cache + "/axiom/plugin-verdicts"
        }
        if let home = secureEnvironment("HOME"), home.hasPrefix("/") { return home + "/.cache/axiom/plugin-verdicts" }
        return nil
    }

    /// The scanner to run: `scannerPath` alone when set; else the `axiom-plugin-scanner` beside the running
    /// executable, then `AXIOM_PLUGIN_SCANNER`, then the host's own executable. A failure names the places looked
    /// at.
    func resolveScanner() -> Result<ScannerCommand, PluginRejection.Code.Failure> {
        let name = PluginScanner.executableName
        var tried: [String] = []
        if usesSeparateScanner {
            var candidates: [String] = []
            if let scannerPath {
                candidates = [scannerPath]
            } else {
                if let directory = realPath("/proc/self/exe").map(parentDirectory(of:)) {
                    candidates.append(directory + "/" + name)
                }
                if let configured = secureEnvironment("AXIOM_PLUGIN_SCANNER") { candidates.append(configured) }
            }
            for candidate in candidates {
                if isExecutableFile(candidate) { return .success(ScannerCommand(separate: candidate)) }
                tried.append(candidate)
            }
            if scannerPath != nil {
                return .failure(
                    PluginRejection.Code.Failure(
                        .scannerUnavailable,
                        "no \(name) executable at \(tried.joined()) (PluginVetting.scannerPath); build it (swift build "
                            + "--product \(name)), leave scannerPath nil for the host's own executable, or choose "
                            + "PluginVetting.inProcess"))
            }
        }
        switch ScannerCommand.hostExecutable() {
        case .success(let command): return .success(command)
        case .failure(let unavailable):
            return .failure(
                PluginRejection.Code.Failure(
                    .scannerUnavailable,
                    (tried.isEmpty ? "" : "no \(name) executable at " + tried.joined(separator: " or ") + ", and ")
                        + "the host's own executable cannot be the scanner (\(unavailable.detail)); ship \(name) beside the "
                        + "executable (swift build --product \(name)), set AXIOM_PLUGIN_SCANNER, or choose "
                        + "PluginVetting.inProcess"))
        }
    }
}

/// A regular file this process may execute.
private func isExecutableFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
}

/// How a scanner process is started.
struct ScannerCommand: Equatable {
    /// The file `posix_spawn` executes.
    var executable: String
    /// Its arguments, before the host's pid: the program's name, and the marker for the host's own executable.
    var arguments: [String]
    /// The scanner, as refusals name it.
    var name: String

    /// The separate `axiom-plugin-scanner` at `path`.
    init(separate path: String) {
        executable = path
        arguments = [path]
        name = PluginScanner.executableName
    }

    /// The host's own executable: `/proc/self/exe`, which `execve` follows to the very file this process runs
    /// (even when its path was replaced or removed since), with the marker the constructor looks for. A failure
    /// says why it cannot be: a set-user-ID or capability-raised process (whose scanner would honour arguments and
    /// descriptors from anyone who starts it), or no `/proc`.
    static func hostExecutable() -> Result<ScannerCommand, PluginRejection.Code.Failure> {
        if axiom_plugin_secure_execution() != 0 {
            return .failure(.init(.scannerUnavailable, "it runs set-user-ID or with raised capabilities"))
        }
        guard isExecutableFile("/proc/self/exe"), let path = realPath("/proc/self/exe") else {
            return .failure(.init(.scannerUnavailable, "/proc/self/exe is not readable"))
        }
        return .success(
            ScannerCommand(
                executable: "/proc/self/exe", arguments: [path, PluginScanner.marker],
                name: "the host's scanner process"))
    }

    private init(executable: String, arguments: [String], name: String) {
        self.executable = executable
        self.arguments = arguments
        self.name = name
    }
}

extension PluginRejection.Code {
    /// A reason with its detail, before the path is known.
    struct Failure: Error {
        var reason: PluginRejection.Code
        var detail: String
        init(_ reason: PluginRejection.Code, _ detail: String) {
            self.reason = reason
            self.detail = detail
        }
    }
}

/// An environment variable, unless the process runs set-user-ID or with capabilities (`secure_getenv`), and
/// unless empty.
func secureEnvironment(_ name: String) -> String? {
    guard let value = axiom_plugin_secure_getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
    return value
}

/// Runs the scanner on one open plugin file.
enum ScannerProcess {
    /// The largest verdict read from a scanner: far above any real catalog (the reader's item bound).
    static let maxOutput = 64 << 20

    /// Scans the file open at `file` with `scanner`, waiting at most `timeout`.
    static func scan(file: Int32, scanner: ScannerCommand, timeout: Duration) -> PluginVerdict {
        var pipeEnds: [Int32] = [0, 0]
        let piped = retryingTransient { axiom_plugin_pipe_cloexec(&pipeEnds) == 0 ? 0 : errno }
        guard piped == 0 else {
            return .refused(.scannerUnavailable, "pipe: \(String(cString: strerror(piped)))")
        }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        defer { close(readEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto a descriptor clears its close-on-exec flag (glibc does so for dup2 of a descriptor onto itself
        // too), so exactly these two reach the scanner.
        posix_spawn_file_actions_adddup2(&actions, file, PluginScanner.fileDescriptor)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, PluginScanner.verdictDescriptor)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else the host has open, even a descriptor opened without close-on-exec (glibc 2.34 and later).
        _ = axiom_plugin_spawn_close_from(&actions, PluginScanner.verdictDescriptor + 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so that a child the plugin forks is killed with it; no signal blocked, and none
        // ignored (an ignored signal stays ignored across exec).
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)

        var child: pid_t = 0
        // The host's pid: the scanner dies with the host (a plugin that loops must not outlive a host that was
        // killed before its deadline). The scan blocks the spawning thread until the scanner is reaped, so the
        // thread whose exit the kernel watches lives as long as the scanner should.
        let arguments: [UnsafeMutablePointer<CChar>?] =
            (scanner.arguments + [String(getpid())]).map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let spawned = retryingTransient {
            posix_spawn(&child, scanner.executable, &actions, &attributes, arguments, environ)
        }
        close(writeEnd)
        guard spawned == 0 else {
            return .refused(
                .scannerUnavailable, "cannot start \(scanner.arguments[0]): \(String(cString: strerror(spawned)))")
        }

        let deadline = ContinuousClock.now + timeout
        var output: [UInt8] = []
        var finished = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !finished {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            let ready = poll(&poller, 1, Int32(clamping: milliseconds))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                finished = true
            } else if output.count + count > maxOutput {
                break
            } else {
                output += buffer[0..<count]
            }
        }
        // The pipe is closed (or the time is up): the scanner exits right after writing. A plugin that closed the
        // pipe itself and went on running is caught by the same deadline. The child is waited for without being
        // reaped (WNOWAIT), so that its process group, killed next, cannot be a recycled id yet.
        var exited = false
        while ContinuousClock.now < deadline {
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(child), &info, WEXITED | WNOHANG | WNOWAIT)
            if result == 0 && info._sifields._sigchld.si_pid == child {
                exited = true
                break
            }
            if result < 0 && errno != EINTR { break }
            usleep(1000)
        }
        // Whatever the plugin left running in the scanner's group, and the scanner itself when it overran.
        kill(-child, SIGKILL)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        if !exited {
            if output.count > maxOutput - buffer.count {
                return .refused(.crashedInScanner, "the scanner wrote more than \(maxOutput) bytes; killed")
            }
            return .refused(
                .timedOutInScanner,
                "the plugin did not return its catalog within \(timeout) in \(scanner.name); killed")
        }
        return interpret(output: output, status: status, scanner: scanner.name)
    }

    /// The failures of starting a scanner that a busy machine recovers from: no process or memory to spare for a
    /// moment (`EAGAIN`, `ENOMEM`), the descriptor tables full (`EMFILE`, `ENFILE`), the scanner's file open for
    /// writing by another process (`ETXTBSY`), an interrupted call (`EINTR`).
    static let transientStartFailures: Set<Int32> = [EAGAIN, ENOMEM, EMFILE, ENFILE, ETXTBSY, EINTR]

    /// Calls `start` (which returns 0 or an `errno` value) until it succeeds or fails for a lasting reason, trying
    /// again after a transient failure with pauses of 1, 2, 4, … 128 ms (a quarter of a second in all): a plugin is
    /// not refused as `scannerUnavailable` for a moment's shortage. The last failure is returned.
    static func retryingTransient(
        pause: (Duration) -> Void = { usleep(UInt32($0 / .microseconds(1))) },
        _ start: () -> Int32
    ) -> Int32 {
        var failure = start()
        var milliseconds = 1
        while failure != 0, transientStartFailures.contains(failure), milliseconds <= 128 {
            pause(.milliseconds(milliseconds))
            milliseconds *= 2
            failure = start()
        }
        return failure
    }

    /// The verdict from what the scanner (named `scanner` in refusals) wrote and how it ended.
    static func interpret(output: [UInt8], status: Int32, scanner: String) -> PluginVerdict {
        let signal = status & 0x7F
        let exitCode = (status >> 8) & 0xFF
        if signal == 0, exitCode == 0, let verdict = PluginVerdict.decode(output) { return verdict }
        var crash: String?
        var reader = PluginVerdict.Reader(bytes: output)
        if (try? reader.text()) == PluginScanner.crashTag { crash = try? reader.text() }
        if signal != 0 {
            let place = crash ?? PluginScanner.signalName(signal)
            return .refused(.crashedInScanner, "\(place) (in \(scanner); the host is unharmed)")
        }
        if let crash {
            return .refused(.crashedInScanner, "\(crash) (in \(scanner); the host is unharmed)")
        }
        if exitCode == 0 && !output.isEmpty {
            return .refused(.crashedInScanner, "\(scanner) returned a malformed verdict")
        }
        return .refused(
            .crashedInScanner,
            "the plugin exited with status \(exitCode) before it returned its catalog (in \(scanner); the host is "
                + "unharmed)")
    }
}

extension NamedCase where Owner == PluginVetting {
    /// In the scanner: a plugin that crashes, hangs or exits is refused and the host goes on.
    public static var scanner: Self { Self(name: "scanner") }
    /// In the host, as `dlopen` and a call of the entry: a crashing plugin takes the host down. For tests and
    /// benchmarks that measure or check the loader itself, and for hosts that cannot ship the scanner.
    public static var inProcess: Self { Self(name: "inProcess") }
}
