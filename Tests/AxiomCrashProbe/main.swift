// The crash-reporter tests' child process: installs the reporter into the directory
// given as the first argument, then crashes in the way the second argument names
// (or, with `process`, prints the pending reports of that directory symbolicated).
import Axiom
import AxiomCrash
import AxiomPlugins
import CAxiomCrashProbeSupport
import CAxiomFlightRecorder
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

func printError(_ message: String) {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Counts the events it sees.
final class CountingObserver: ErrorObserver {
    private let seen = Mutex(0)
    func observe(_ event: ErrorEvent, disposition: Disposition) { seen.withLock { $0 += 1 } }
    var count: Int { seen.withLock { $0 } }
}

/// What the application's log handlers saw.
final class LogTally: Sendable {
    /// How many handlers the factory made for the framework's label.
    let made = Mutex(0)
    let lines = Mutex<[String]>([])
}

/// A log handler of an application's own: hands each line, with its metadata, to `record`.
struct RecordingLogHandler: LogHandler {
    let record: @Sendable (String) -> Void
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        record("\(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    }
}

@inline(never)
func forceUnwrapNil() -> Int {
    // Not foldable: the optimizer cannot know the argument count.
    let value: Int? = CommandLine.arguments.count > 1000 ? 1 : nil
    return value!  // crash-line: force-unwrap
}

@inline(never)
func fatalErrorWithMessage() -> Never {
    fatalError("probe: the ledger is inconsistent (account 42)")  // crash-line: fatal-error
}

@inline(never)
func indexOutOfRange() -> Int {
    let values = [1, 2, 3]
    return values[CommandLine.arguments.count + 7]  // crash-line: index-out-of-range
}

/// The application code of the fingerprint tests, built by the test in several versions: opens the Swift library
/// `AXIOM_PROBE_APP_LIBRARY` names and calls its `fingerprint_app_run` with `AXIOM_PROBE_APP_CASE`, which crashes.
@inline(never)
func runAppLibrary() {
    guard let path = getenv("AXIOM_PROBE_APP_LIBRARY"), let library = dlopen(path, RTLD_NOW) else {
        printError("dlopen: \(dlerror().map { String(cString: $0) } ?? "no AXIOM_PROBE_APP_LIBRARY")")
        exit(5)
    }
    guard let entry = dlsym(library, "fingerprint_app_run") else { exit(5) }
    typealias Run = @convention(c) (Int32) -> Int32
    let selected = getenv("AXIOM_PROBE_APP_CASE").flatMap { Int32(String(cString: $0)) } ?? 0
    print(unsafeBitCast(entry, to: Run.self)(selected))
}

enum ProbeError: IdentifiableError {
    case declined, timedOut
    var errorCode: ErrorCode {
        switch self {
        case .declined: ErrorCode("probe.payments", "DECLINED")
        case .timedOut: ErrorCode("probe.payments", "TIMED_OUT")
        }
    }
}

/// Decides 40 errors through a pipeline (the last 32 must be in the report), then crashes.
@inline(never)
func crashAfterHandledErrors() {
    let registry = ErrorRegistry()
    try! registry.register(
        ErrorCatalog(
            source: "probe", domains: ["probe.payments"],
            descriptors: [
                ErrorDescriptor(code: ProbeError.declined.errorCode, category: .api, severity: .warning),
                ErrorDescriptor(code: ProbeError.timedOut.errorCode, category: .network, severity: .warning),
            ]))
    let pipeline = ErrorPipeline(
        layer: .application, escalatesTo: nil, configuration: PipelineConfiguration(registry: registry, observers: [])
    ) {}
    for index in 0..<40 {
        _ = try? pipeline.decide(index % 2 == 0 ? ProbeError.declined : .timedOut, operation: "charge-\(index)")
    }
    axiom_probe_null_write()
}

// A crash three async calls deep, on the concurrency pool: each level awaits the next after a suspension, so the
// callers are not on the thread's stack when the innermost one crashes.
@inline(never)
func asyncInnermost() async {
    await Task.yield()
    axiom_probe_null_write()
}

@inline(never)
func asyncMiddle() async -> Int {
    await asyncInnermost()  // crash-line: async-middle
    return CommandLine.arguments.count
}

@inline(never)
func asyncOutermost() async -> Int {
    let count = await asyncMiddle()  // crash-line: async-outer
    return count + 1
}

@inline(never)
func overflowOnUnpreparedThread() {
    _ = axiom_probe_recurse(0)
}

@inline(never)
func overflowOnPreparedThread() {
    try! CrashReporter.prepareCurrentThread()
    _ = axiom_probe_recurse(0)
}

/// Records `count` errors named `<name>-<index>` on a new thread and returns once the thread has exited (joined: its
/// key destructors, which give its flight-recorder shard back, have run), saying whether it owned a shard.
func recordOnANewThread(_ name: String, count: Int) -> Bool {
    final class Job {
        let name: String
        let count: Int
        init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }
    var thread = pthread_t()
    let job = Unmanaged.passRetained(Job(name: name, count: count)).toOpaque()
    let created = pthread_create(
        &thread, nil,
        { argument in
            let job = Unmanaged<Job>.fromOpaque(argument!).takeRetainedValue()
            for index in 0..<job.count {
                var code = "probe/RECORDED"
                var layer = "probe"
                var operation = "\(job.name)-\(index)"
                code.withUTF8 { code in
                    layer.withUTF8 { layer in
                        operation.withUTF8 { operation in
                            axiom_flight_recorder_record_error(
                                code.baseAddress, code.count, layer.baseAddress, layer.count, operation.baseAddress,
                                operation.count, 1, UInt8(AXIOM_RECENT_ERROR_IGNORED))
                        }
                    }
                }
            }
            return UnsafeMutableRawPointer(bitPattern: axiom_flight_recorder_thread_owns_shard() != 0 ? 1 : 2)
        }, job)
    precondition(created == 0)
    var result: UnsafeMutableRawPointer?
    pthread_join(thread, &result)
    return Int(bitPattern: result) == 1
}

/// Threads that record one error each, one after another, more of them than the flight recorder has shards, then
/// one more: prints `owners=N threads=M late=0|1`, how many of the M owned a shard when they recorded, and whether
/// the one after them did. In this process no other thread records, so every shard an exited thread gave back is
/// free for the next.
func printShardGiveBack() {
    let threads = Int(AXIOM_RECENT_ERROR_SHARDS) + 4
    let owners = (0..<threads).filter { recordOnANewThread("thread\($0)", count: 1) }.count
    let late = recordOnANewThread("late", count: 1)
    print("owners=\(owners) threads=\(threads) late=\(late ? 1 : 0)")
}

/// Two threads record, one after the other with 30 ms between (several ticks of the coarse clock): 40 errors,
/// more than a shard holds, then 12. Prints the operations of the merged ring, oldest first, one a line.
func printShardMerge() {
    _ = recordOnANewThread("a", count: 40)
    usleep(30_000)
    _ = recordOnANewThread("b", count: 12)
    for entry in FlightRecorder.recentErrors() { print(entry.operation) }
}

/// Prints the address space that 32 threads parked at once add to the process, in KiB, when created through
/// `pthread_create` (the reporter's wrapper) and through the C library's own (found with `RTLD_NEXT`):
/// `wrapped=N direct=N`. The difference is the wrapper's share.
func printThreadAddressSpace() {
    typealias Create =
        @convention(c) (
            UnsafeMutablePointer<pthread_t>?, UnsafePointer<pthread_attr_t>?,
            @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
        ) -> Int32
    let direct = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: -1), "pthread_create")!, to: Create.self)
    let wrapped: Create = { pthread_create($0!, $1, $2, $3) }
    func addressSpaceKiB() -> Int {
        let status = open("/proc/self/status", O_RDONLY)
        defer { close(status) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = read(status, &bytes, bytes.count)
        let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmSize:") }!
        return Int(line.split(separator: " ").dropFirst().first!)!
    }
    func parked(_ create: Create) -> Int {
        // Each thread says it has started (the wrapper's work is done by then) on one pipe, then waits until the
        // other closes, allocating nothing. Both descriptors travel in the thread's argument.
        var started = [Int32](repeating: 0, count: 2)
        var gate = [Int32](repeating: 0, count: 2)
        precondition(pipe(&started) == 0 && pipe(&gate) == 0)
        let descriptors = Int(started[1]) << 32 | Int(gate[0])
        let before = addressSpaceKiB()
        let threads = (0..<32).map { _ in
            var thread = pthread_t()
            let result = create(
                &thread, nil,
                { argument in
                    let descriptors = Int(bitPattern: argument)
                    var byte: UInt8 = 1
                    _ = write(Int32(descriptors >> 32), &byte, 1)
                    _ = read(Int32(descriptors & 0xffff_ffff), &byte, 1)
                    return nil
                }, UnsafeMutableRawPointer(bitPattern: descriptors))
            precondition(result == 0)
            return thread
        }
        var byte: UInt8 = 0
        for _ in threads { precondition(read(started[0], &byte, 1) == 1) }
        let during = addressSpaceKiB()
        close(gate[1])
        for thread in threads { pthread_join(thread, nil) }
        for descriptor in [started[0], started[1], gate[0]] { close(descriptor) }
        return during - before
    }
    // A first round of direct threads warms what the first threads of a process set up once. The wrapped threads
    // are measured on their first round: glibc keeps an arena once it has made one, so a malloc arena that the
    // wrapper made a thread reserve would show only the first time.
    _ = parked(direct)
    let wrappedKiB = parked(wrapped)
    print("wrapped=\(wrappedKiB) direct=\(parked(direct))")
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    printError("usage: AxiomCrashProbe <report-directory> <crash-kind>")
    exit(2)
}
/// Appends `line` and a line break to the file `path` in one write(2), so a kill never leaves half a line.
func appendLine(_ line: String, to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "open \(path): \(errno)")
    defer { close(fd) }
    let bytes = Array((line + "\n").utf8)
    precondition(bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) } == bytes.count)
}

/// How many entries this process wrote (logged or exported).
enum Delivered {
    static let count = Atomic<Int>(0)
}

/// Once an entry is written and before its report is marked done: with `AXIOM_PROBE_KILL_AFTER=N`, the N-th
/// entry's process kills itself (SIGKILL) right there; then waits `AXIOM_PROBE_DELIVERY_DELAY_US` microseconds
/// (default 0), the time a test has to kill it at a point of its choosing.
func afterDelivery() {
    let count = Delivered.count.add(1, ordering: .relaxed).newValue
    if let text = getenv("AXIOM_PROBE_KILL_AFTER"), Int(String(cString: text)) == count { kill(getpid(), SIGKILL) }
    if let text = getenv("AXIOM_PROBE_DELIVERY_DELAY_US"), let delay = UInt32(String(cString: text)) {
        usleep(delay)
    }
}

/// A log handler that appends `<reportID> <message>` to a file, one write per entry.
struct FileLogHandler: LogHandler {
    let path: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let reportID = event.metadata?["reportID"].map { "\($0)" } ?? "-"
        appendLine("\(reportID) \(event.level) \(event.message)", to: path)
        afterDelivery()
    }
}

let directory = arguments[1]
switch arguments[2] {
case "process":
    // Not a crash: symbolicate the pending reports and print their text form.
    for outcome in try CrashReportProcessor(directory: directory).processPendingReports() {
        switch outcome {
        case .processed(let processed): print(processed.report.text)
        case .rejected(let path, let reason): print("rejected \(path): \(reason)")
        case .incomplete(let path, let pid, let reportID): print("incomplete \(path): pid \(pid) \(reportID)")
        case .failed(let path, let reason): print("failed \(path): \(reason)")
        }
    }
    exit(0)
case "log-pending":
    // Not a crash: a CrashReportLogger logs the pending reports into the file AXIOM_PROBE_LOG_FILE names, one
    // line per entry (`<reportID> <level> <message>`), waiting AXIOM_PROBE_DELIVERY_DELAY_US after each.
    let logFile = String(cString: getenv("AXIOM_PROBE_LOG_FILE")!)
    let logger = Logger(label: "axiom.crash") { _ in FileLogHandler(path: logFile) }
    try CrashReportLogger(logger: logger).processPendingReports(with: CrashReportProcessor(directory: directory))
    exit(0)
case "export-pending":
    // Not a crash: the pending reports handed to an asynchronous exporter as AxiomService hands them to its
    // OTLP exporter, each appended to AXIOM_PROBE_LOG_FILE (`<reportID> exported`) before it is marked done.
    let logFile = String(cString: getenv("AXIOM_PROBE_LOG_FILE")!)
    // On the concurrency pool, as a service's start runs (and without making this file's top level async).
    Task.detached {
        _ = try await CrashReportProcessor(directory: directory).processPendingReports { pending async throws in
            await Task.yield()
            appendLine("\(pending.reportID ?? "-") exported", to: logFile)
            afterDelivery()
        }
        exit(0)
    }
    while true { sleep(30) }
default: break
}
axiom_probe_disable_core_dumps()
// AXIOM_PROBE_INSTALL_WHEN=<path>: wait until that file exists, then install (many processes installing at once).
if let gate = getenv("AXIOM_PROBE_INSTALL_WHEN") {
    while access(gate, F_OK) != 0 { usleep(1000) }
}
// AXIOM_PROBE_NO_REPORTER=1: crash without the reporter (the baselines of Benchmarks/crash-to-death).
if getenv("AXIOM_PROBE_NO_REPORTER") == nil {
    do {
        // AXIOM_PROBE_DIE_AT_ONCE=1: no earlier handler (the Swift backtracer) runs after the report.
        let afterReport: CrashReporter.AfterReport =
            getenv("AXIOM_PROBE_DIE_AT_ONCE") == nil ? .runPreviousHandlers : .dieAtOnce
        try CrashReporter.install(directory: directory, afterReport: afterReport)
        try CrashReporter.install(directory: directory)  // a second install must be harmless
    } catch {
        printError("install failed: \(error)")
        exit(3)
    }
}
// After install, what can make the crash's report fail to be written (all but the first even for root):
// AXIOM_PROBE_REMOVE_DIRECTORY=1 removes the (empty) report directory; AXIOM_PROBE_FILE_SIZE_LIMIT=N caps the size
// of every file this process writes at N bytes (RLIMIT_FSIZE, with SIGXFSZ ignored, so a write past it fails with
// EFBIG as one on a full disk fails with ENOSPC) and the report is cut short.
// AXIOM_PROBE_READ_ONLY_DIRECTORY=1 makes the directory read-only (which root ignores).
if getenv("AXIOM_PROBE_READ_ONLY_DIRECTORY") != nil, chmod(directory, 0o500) != 0 {
    printError("chmod \(directory): \(errno)")
    exit(7)
}
if getenv("AXIOM_PROBE_REMOVE_DIRECTORY") != nil, rmdir(directory) != 0 {
    printError("rmdir \(directory): \(errno)")
    exit(7)
}
if let text = getenv("AXIOM_PROBE_FILE_SIZE_LIMIT"), let limit = UInt(String(cString: text)) {
    signal(SIGXFSZ, SIG_IGN)
    var bound = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    if setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &bound) != 0 {
        printError("setrlimit: \(errno)")
        exit(7)
    }
}

switch arguments[2] {
case "none": exit(0)
case "thread-address-space":
    printThreadAddressSpace()
    exit(0)
case "shard-give-back":
    printShardGiveBack()
    exit(0)
case "shard-merge":
    printShardMerge()
    exit(0)
case "force-unwrap": print(forceUnwrapNil())
case "null-write": axiom_probe_null_write()
case "abort": axiom_probe_abort()
case "divide-by-zero": print(axiom_probe_divide_by_zero())
case "bus-error": print(axiom_probe_bus_error(directory + "/bus-error.data"))
case "trap": axiom_probe_trap()
case "breakpoint": axiom_probe_breakpoint()
case "stack-overflow": print(axiom_probe_recurse(0))
case "thread-stack-overflow": axiom_probe_run_on_thread("probe-overflow", overflowOnPreparedThread)
case "two-threads": axiom_probe_two_threads_crash()
case "fatal-error": fatalErrorWithMessage()
case "index-out-of-range": print(indexOutOfRange())
case "assert": axiom_probe_assert(Int32(arguments.count))
case "dlopen-late": print(axiom_probe_crash_in_late_library())
case "app-library": runAppLibrary()
case "threads":
    // 8 other threads alive: 2 blocked in read(2), 6 waiting on a condition variable.
    axiom_probe_start_workers(8, 2)
    axiom_probe_null_write()
case "recent-errors": crashAfterHandledErrors()
case "async-crash":
    Task.detached { print(await asyncOutermost()) }
    while true { sleep(30) }
case "traced-async-crash":
    // A task that announced a trace crashes on the concurrency pool, after a suspension moved it to whichever
    // pool thread resumed it; a second task announced another trace and stays suspended.
    Task.detached {
        await FlightRecorder.withActiveTrace(traceID: Array(0xa0...0xaf), spanID: Array(0xb8...0xbf)) {
            try? await Task.sleep(for: .seconds(1000))
        }
    }
    Task.detached {
        await FlightRecorder.withActiveTrace(traceID: Array(0x10...0x1f), spanID: Array(0x20...0x27)) {
            try? await Task.sleep(for: .milliseconds(50))
            print(await asyncOutermost())
        }
    }
    while true { sleep(30) }
case "timed-threads":
    // For Benchmarks/crash-to-death and Benchmarks/scaling: 8 other threads (or AXIOM_PROBE_WORKERS, at most 63;
    // 2 of them blocked in read(2)), then the CLOCK_MONOTONIC time just before the fault.
    let workers = getenv("AXIOM_PROBE_WORKERS").flatMap { Int32(String(cString: $0)) } ?? 8
    axiom_probe_start_workers(min(max(workers, 0), 63), min(workers, 2))
    // How many threads the process has, as the report will list them.
    var threads = 0
    if let tasks = opendir("/proc/self/task") {
        // Every entry but "." and "..".
        while let entry = readdir(tasks) { threads += entry.pointee.d_name.0 == 46 ? 0 : 1 }
        closedir(tasks)
    }
    printError("threads \(threads)")
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    printError("fault-at \(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))")
    axiom_probe_null_write()
case "deaf-thread":
    axiom_probe_start_deaf_thread()
    axiom_probe_null_write()
case "async-stack-overflow":
    // On a thread of the Swift concurrency pool, which nobody prepared: its stack comes from the reporter.
    Task.detached { print(axiom_probe_recurse(0)) }
    while true { sleep(30) }
case "c-thread-stack-overflow":
    // On a thread a C library creates with pthread_create, not prepared either.
    axiom_probe_run_on_thread("probe-c-thread", overflowOnUnpreparedThread)
case "plugin-loaded":
    // A Swift library opened after install, through the plugin host: listed as a module and as a plugin.
    let folder = String(
        CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .joined(separator: "/"))
    // In process: with the default vetting the host never maps a plugin (its code runs in the scanner), and this
    // case is about a library mapped after install.
    let host = PluginHost(registry: ErrorRegistry(), vetting: .inProcess)
    guard case .success = host.load(file: folder + "/libAxiomPluginNWC.so") else { exit(6) }
    axiom_probe_null_write()
case "observer-bootstrap":
    // The process's default observers: bootstrapped once, seen by a pipeline made with the default configuration,
    // and a second bootstrap stops the process.
    let counter = CountingObserver()
    ErrorObserverSystem.bootstrap(counter)
    let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil) { Ignore(.any) }
    _ = try? pipeline.decide(ClientError.invalidState, operation: "probe")
    _ = try? pipeline.decide(ClientError.invalidState, operation: "probe")
    printError("observed \(counter.count)")
    ErrorObserverSystem.bootstrap()
case "swift-log-bootstrap":
    // An application that bootstraps swift-log itself, after the framework made its loggers: every line of the
    // framework reaches the application's handler redacted, and the handler is made once, not per line.
    let logger = Logger.axiom("probe.framework")
    let tally = LogTally()
    LoggingSystem.bootstrap { label in
        if label == "probe.framework" { tally.made.withLock { $0 += 1 } }
        return RecordingLogHandler { line in tally.lines.withLock { $0.append(line) } }
    }
    var checked = 0
    for index in 0..<100 {
        if logger.logLevel <= .error { checked += 1 }
        logger.error("charge \(index) failed", metadata: ["password": "hunter2"])
    }
    let written = tally.lines.withLock { $0 }
    let secrets = written.filter { $0.contains("hunter2") }.count
    let keys = written.filter { $0.contains("password=") }.count
    printError(
        "made \(tally.made.withLock { $0 }) checked \(checked) lines \(written.count) secrets \(secrets) keys \(keys)")
    exit(0)
case "dlopen-refresh":
    // A library opened after install is in the report only after refreshModules().
    guard dlopen("libbz2.so.1.0", RTLD_NOW) != nil else { exit(5) }
    CrashReporter.refreshModules()
    axiom_probe_null_write()
default:
    printError("unknown crash kind \(arguments[2])")
    exit(2)
}
printError("did not crash")
exit(4)
