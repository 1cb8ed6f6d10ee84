import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended.
struct Termination: Equatable, CustomStringConvertible {
    /// The signal that killed it, or nil when it exited.
    var signal: Int32?
    /// The exit status, when it exited.
    var exitCode: Int32?

    init(waitStatus status: Int32) {
        let low = status & 0x7f
        if low == 0 {
            signal = nil
            exitCode = (status >> 8) & 0xff
        } else {
            signal = low
            exitCode = nil
        }
    }

    var description: String {
        if let signal { return "killed by signal \(signal)" }
        return "exited with \(exitCode ?? -1)"
    }
}

/// Runs the crash probe (built beside the test binary) and waits for it with waitpid.
enum ChildProcess {
    static var probePath: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = String(decoding: buffer.prefix(max(0, count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .joined(separator: "/")
        return directory + "/AxiomCrashProbe"
    }

    /// Runs `AxiomCrashProbe <directory> <kind>`; stderr goes to `stderrPath`
    /// (`<directory>.stderr` by default). `swiftBacktrace` is the SWIFT_BACKTRACE value
    /// the child sees; `environment` adds `NAME=value` entries to the child's (and to no other process's).
    static func runProbe(
        directory: String, kind: String, swiftBacktrace: String = "enable=no", stderrPath: String? = nil,
        environment extra: [String] = []
    ) -> (termination: Termination, stderr: String) {
        let stderrPath = stderrPath ?? directory + ".stderr"
        var environment = currentEnvironment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") }
        environment.append("SWIFT_BACKTRACE=" + swiftBacktrace)
        environment += extra
        let termination = run(
            probePath, [directory, kind], environment: environment, stdoutPath: "/dev/null", stderrPath: stderrPath)
        return (termination, readText(stderrPath))
    }

    /// Runs `executable` with `arguments`, its output sent to the given files, and
    /// waits for it with waitpid.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String]? = nil, stdoutPath: String,
        stderrPath: String = "/dev/null"
    ) -> Termination {
        wait(
            spawn(
                executable, arguments, environment: environment, stdoutPath: stdoutPath, stderrPath: stderrPath))
    }

    /// Runs `tool` (a compiler, a binary tool) and requires it to exit 0: its standard error goes to `log`, whose
    /// text the failure shows.
    static func runSucceeding(_ tool: String, _ arguments: [String], log: String) throws {
        let termination = run(tool, arguments, stdoutPath: "/dev/null", stderrPath: log)
        try #require(termination == .exited(0), "\(tool) \(arguments): \(readText(log))")
    }

    /// Starts `executable` with `arguments`, its output sent to the given files, and returns its pid at once.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String]? = nil, stdoutPath: String,
        stderrPath: String = "/dev/null"
    ) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = withSanitizerOptions(environment ?? currentEnvironment()).map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        precondition(spawned == 0, "posix_spawn \(executable): \(spawned)")
        return pid
    }

    /// Waits for the child `pid` with waitpid.
    static func wait(_ pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            precondition(errno == EINTR, "waitpid: \(errno)")
        }
        return Termination(waitStatus: status)
    }

    /// A child built with a sanitizer (`swift test --sanitize=thread|address`) would catch a crash itself and
    /// exit with the sanitizer's report before the crash reporter's handler runs. These options leave the fatal
    /// signals to the reporter, as in a build without a sanitizer; a child without one never reads them.
    static func withSanitizerOptions(_ environment: [String]) -> [String] {
        let leaveSignals = "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0"
        var result = environment.filter { !$0.hasPrefix("TSAN_OPTIONS=") && !$0.hasPrefix("ASAN_OPTIONS=") }
        for name in ["TSAN_OPTIONS", "ASAN_OPTIONS"] {
            let inherited = environment.first { $0.hasPrefix(name + "=") }.map { $0.dropFirst(name.count + 1) }
            result.append("\(name)=" + (inherited.map { "\($0):" } ?? "") + leaveSignals)
        }
        return result
    }

    static func currentEnvironment() -> [String] {
        var result: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            result.append(String(cString: entry))
            pointer += 1
        }
        return result
    }

    static func readText(_ path: String) -> String {
        String(decoding: readFileBytes(path) ?? [], as: UTF8.self)
    }
}

/// A fresh directory under /tmp, removed with its contents by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/axiom-crash-tests-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp: \(errno)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove() {
        removeTree(path)
        unlink(path + ".stderr")
    }

    private func removeTree(_ path: String) {
        for entry in directoryEntries(path) {
            let child = path + "/" + entry.name
            if entry.isDirectory { removeTree(child) } else { unlink(child) }
        }
        rmdir(path)
    }
}

/// The names in a directory (without `.` and `..`), and whether each is a directory.
func directoryEntries(_ path: String) -> [(name: String, isDirectory: Bool)] {
    guard let handle = opendir(path) else { return [] }
    defer { closedir(handle) }
    var entries: [(name: String, isDirectory: Bool)] = []
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) {
            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name == "." || name == ".." { continue }
        entries.append((name, entry.pointee.d_type == UInt8(DT_DIR)))
    }
    return entries
}

/// The whole file, or nil when it cannot be opened.
func readFileBytes(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk.prefix(count)
    }
    return bytes
}
