import Axiom
import AxiomCrash
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a crash report holds beyond the crashed thread's stack: the runtime's message, every module loaded at
/// the time, every other thread, and the errors the application decided just before (what reports used to miss).
@Suite("Crash reports without blind spots")
struct CrashBlindSpotTests {
    /// Crashes the probe in the way `kind` names and returns its one report, symbolicated.
    func crash(_ kind: String, in directory: TemporaryDirectory) throws -> ProcessedCrashReport {
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: kind)
        #expect(termination.signal != nil, "child \(termination); stderr: \(stderr)")
        let outcomes = try CrashReportProcessor(directory: directory.path).processPendingReports()
        try #require(outcomes.count == 1)
        guard case .processed(let processed) = outcomes[0] else {
            throw ReportNotProcessed(outcome: "\(outcomes[0])")
        }
        return processed
    }

    struct ReportNotProcessed: Error {
        var outcome: String
    }

    func json(_ processed: ProcessedCrashReport) throws -> [String: Any] {
        let data = Data(try #require(readFileBytes(processed.jsonPath)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(
        "the Swift runtime's fatal message is the crash's description",
        arguments: [
            ("fatal-error", "Fatal error: probe: the ledger is inconsistent (account 42)"),
            ("force-unwrap", "Fatal error: Unexpectedly found nil while unwrapping an Optional value"),
            ("index-out-of-range", "Fatal error: Index out of range"),
        ])
    func swiftFatalMessage(kind: String, message: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash(kind, in: directory)
        let report = processed.report
        let fatalMessage = try #require(report.raw.fatalMessage, "no message in the \(kind) report")
        #expect(fatalMessage.contains(message), "message: \(fatalMessage)")
        #expect(!fatalMessage.hasSuffix("\n"))
        #expect(report.summary == fatalMessage)
        let json = try json(processed)
        #expect(json["description"] as? String == fatalMessage)
        #expect(json["fatalMessage"] as? String == fatalMessage)
        #expect(ChildProcess.readText(processed.textPath).contains(fatalMessage))
    }

    @Test("glibc's assertion message is the crash's description")
    func assertionMessage() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let report = try crash("assert", in: directory).report
        let message = try #require(report.raw.fatalMessage)
        #expect(message.contains("axiom_crash_probe.c:\(crashLine("assert", in: probeC) ?? -1)"), "\(message)")
        #expect(message.contains("Assertion `value == 42 && \"the probe's ledger is balanced\"' failed."))
    }

    @Test("a crash without a message has none, and says what the signal means")
    func noMessage() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash("null-write", in: directory)
        #expect(processed.report.raw.fatalMessage == nil)
        #expect(processed.report.summary == "Bad pointer dereference")
        #expect(try json(processed)["fatalMessage"] == nil)
    }

    /// libbz2 is opened after install and nobody calls `refreshModules()`: the report still lists it (read at
    /// crash time), and the faulting frames inside it carry its image and names.
    @Test("a library opened after install is in the report, with its frames")
    func libraryOpenedAfterInstall() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let report = try crash("dlopen-late", in: directory).report
        #expect(!report.raw.modulesFromInstall)
        let library = try #require(report.raw.modules.first { $0.path.hasSuffix("/libbz2.so.1.0") })
        #expect(library.buildID.count >= 8)
        #expect(library.contains(report.raw.frames[0]), "the fault is inside libbz2")
        #expect(report.frames.first?.image == "libbz2.so.1.0")
        #expect(report.frames.contains { $0.image == "libbz2.so.1.0" && $0.function == "BZ2_bzBuffToBuffCompress" })
        let own = try #require(report.frames.first { $0.image == "AxiomCrashProbe" })
        #expect(own.function == "axiom_probe_crash_in_late_library")
        #expect(own.line == crashLine("late-library", in: probeC))
    }

    @Test("a crash lists every module loaded at that moment, the executable first")
    func modulesAreReadAtCrashTime() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let report = try crash("null-write", in: directory).report
        #expect(!report.raw.modulesFromInstall)
        #expect(report.raw.modules.first?.path.hasSuffix("/AxiomCrashProbe") == true)
        #expect(report.raw.modules.contains { $0.path.hasSuffix("/libswiftCore.so") })
        #expect(Set(report.raw.modules.map(\.path)).count == report.raw.modules.count)
    }

    /// A Swift library opened after install: a shipped plugin, loaded by the plugin host. It is a module of the
    /// report, and the report's plugin list names it with the same build-id.
    @Test(
        "a plugin loaded after install is a module and a plugin of the report",
        .disabled(if: Sanitizers.thread, "Swift plugins are not loaded under ThreadSanitizer (see AxiomPluginsTests)"))
    func pluginLoadedAfterInstall() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash("plugin-loaded", in: directory)
        let raw = processed.report.raw
        let module = try #require(raw.modules.first { $0.path.hasSuffix("/libAxiomPluginNWC.so") })
        let plugin = try #require(raw.plugins.first, "no plugin in the report")
        #expect(raw.plugins.count == 1)
        #expect(plugin.path.hasSuffix("/libAxiomPluginNWC.so"))
        #expect(!plugin.id.isEmpty && !plugin.version.isEmpty)
        #expect(plugin.buildID.count >= 8)
        #expect(plugin.buildID == module.buildID)
        let listed = try #require(try json(processed)["plugins"] as? [[String: Any]])
        #expect(listed.first?["buildId"] as? String == module.buildIDHex)
        #expect(listed.first?["id"] as? String == plugin.id)
        #expect(
            ChildProcess.readText(processed.textPath).contains("\(plugin.id) \(plugin.version) \(module.buildIDHex)"))
    }

    /// 8 other threads: 2 blocked in read(2), 6 waiting on a condition variable.
    @Test("every thread is in the report, with its name and its stack")
    func everyThread() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash("threads", in: directory)
        let report = processed.report
        let workers = report.otherThreads.filter { $0.name.hasPrefix("probe-") }
        #expect(workers.count == 8, "threads: \(report.otherThreads.map(\.name))")
        #expect(Set(workers.map(\.name)).count == 8)
        #expect(report.raw.omittedThreads == 0)
        for worker in workers {
            #expect(worker.answered, "\(worker.name) did not answer")
            #expect(worker.tid != report.raw.tid)
            let expected = worker.name.hasPrefix("probe-read") ? "axiom_probe_blocked_in_read" : "worker_main"
            #expect(
                worker.frames.contains { $0.function == expected }, "\(worker.name): \(worker.frames.map(\.function))")
        }
        let blocked = workers.filter { $0.name.hasPrefix("probe-read") }
        #expect(blocked.count == 2)
        for thread in blocked {
            let frame = try #require(thread.frames.first { $0.function == "axiom_probe_blocked_in_read" })
            #expect(frame.line == crashLine("blocked-read", in: probeC))
            #expect(thread.frames.first?.image == "libc.so.6", "its pc is in the read(2) wrapper")
        }
        let threads = try #require(try json(processed)["threads"] as? [[String: Any]])
        #expect(threads.count == 1 + report.otherThreads.count)
        #expect(threads.filter { $0["crashed"] as? Bool == true }.count == 1)
        #expect(threads.dropFirst().allSatisfy { $0["registers"] == nil && $0["frames"] is [[String: Any]] })
        let text = ChildProcess.readText(processed.textPath)
        for worker in workers { #expect(text.contains("Thread \(worker.tid) \"\(worker.name)\":")) }
    }

    /// A thread that blocks every signal cannot be asked for its stack: the crashed thread waits a bounded time
    /// (half a second), then writes the report with that thread's id and name, marked as not answering.
    @Test("a thread that does not answer is named, marked, and does not hold up the report")
    func threadThatDoesNotAnswer() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash("deaf-thread", in: directory)
        let report = processed.report
        let deaf = try #require(report.otherThreads.first { $0.name == "probe-deaf" })
        #expect(!deaf.answered)
        #expect(deaf.frames.isEmpty)
        #expect(report.frames.first?.function == "axiom_probe_null_write")
        let threads = try #require(try json(processed)["threads"] as? [[String: Any]])
        let listed = try #require(threads.first { $0["name"] as? String == "probe-deaf" })
        #expect(listed["answered"] as? Bool == false)
        #expect(ChildProcess.readText(processed.textPath).contains("(did not give its stack in time)"))
    }

    /// 40 errors decided (20 of each code, alternating), then a crash: the report holds the last 32, oldest first.
    @Test("the errors the application decided before the crash are in the report")
    func recentErrors() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash("recent-errors", in: directory)
        let errors = processed.report.raw.recentErrors
        try #require(errors.count == FlightRecorder.capacity, "\(errors.count) errors")
        #expect(errors.map(\.operation) == (8..<40).map { "charge-\($0)" })
        for (offset, error) in errors.enumerated() {
            #expect(error.code == (offset % 2 == 0 ? "probe.payments/DECLINED" : "probe.payments/TIMED_OUT"))
            #expect(error.disposition == "handle")
            #expect(error.layer == "application")
            #expect(error.attempt == 1)
        }
        #expect(
            zip(errors, errors.dropFirst()).allSatisfy { earlier, later in
                (earlier.timestamp.seconds, earlier.timestamp.nanoseconds)
                    <= (later.timestamp.seconds, later.timestamp.nanoseconds)
            })
        let crashTime = processed.report.raw.timestamp
        #expect(errors.last.map { $0.timestamp.seconds <= crashTime.seconds } == true)
        let json = try json(processed)
        let listed = try #require(json["recentErrors"] as? [[String: Any]])
        #expect(listed.count == 32)
        #expect(listed.last?["code"] as? String == "probe.payments/TIMED_OUT")
        #expect(listed.last?["operation"] as? String == "charge-39")
        #expect(
            ChildProcess.readText(processed.textPath).contains(
                "probe.payments/TIMED_OUT handle by application in charge-39"))
    }

    /// The same crash, reported by the Swift runtime's backtracer (chained after the reporter) as JSON: every
    /// field it writes at the top, in a thread, in a frame and in an image is in the reporter's JSON too, and
    /// every frame kind the reporter writes is one of the backtracer's.
    @Test(
        "the JSON is a superset of the Swift backtracer's crash log",
        .disabled(
            if: Sanitizers.any,
            "the Swift backtracer trips the child's sanitizer runtime (see chainsToTheSwiftBacktracer)"))
    func jsonIsASupersetOfTheSwiftBacktracers() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let swiftLog = directory.path + "/swift-backtrace.json"
        let (termination, stderr) = ChildProcess.runProbe(
            directory: directory.path + "/reports", kind: "stack-overflow",
            swiftBacktrace:
                "enable=yes,interactive=no,color=no,format=json,threads=all,images=all,output-to=\(swiftLog)",
            stderrPath: directory.path + "/stderr")
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        let logBytes = try #require(readFileBytes(swiftLog), "the Swift backtracer wrote no log; stderr: \(stderr)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(logBytes)) as? [String: Any])
        let outcomes = try CrashReportProcessor(directory: directory.path + "/reports").processPendingReports()
        guard case .processed(let processed) = try #require(outcomes.first) else {
            Issue.record("not processed: \(outcomes)")
            return
        }
        let ours = try json(processed)

        func keys(_ objects: [[String: Any]]) -> Set<String> { objects.reduce(into: []) { $0.formUnion($1.keys) } }
        func frames(_ report: [String: Any]) -> [[String: Any]] {
            ((report["threads"] as? [[String: Any]]) ?? []).flatMap { ($0["frames"] as? [[String: Any]]) ?? [] }
        }
        // `capturedMemory` is memory around the registers: the backtracer reads it from another process, which
        // a signal handler does not.
        let top = Set(theirs.keys).subtracting(["capturedMemory"])
        #expect(top.isSubset(of: ours.keys), "missing: \(top.subtracting(ours.keys))")
        for key in [
            "timestamp", "kind", "description", "faultAddress", "platform", "architecture", "threads",
            "images", "omittedImages", "omittedThreads", "backtraceTime",
        ] {
            #expect(ours[key] != nil, "missing \(key)")
        }
        let theirThreads = (theirs["threads"] as? [[String: Any]]) ?? []
        let ourThreads = (ours["threads"] as? [[String: Any]]) ?? []
        #expect(
            keys(theirThreads).isSubset(of: keys(ourThreads)), "\(keys(theirThreads).subtracting(keys(ourThreads)))")
        // Frame fields the backtracer writes for frames of the same kind of stack (a deep recursion, cut).
        let theirFrameKeys = keys(frames(theirs)).subtracting(["count"])
        #expect(theirFrameKeys.isSubset(of: keys(frames(ours))), "\(theirFrameKeys.subtracting(keys(frames(ours))))")
        let images = (theirs["images"] as? [[String: Any]]) ?? []
        #expect(keys(images).isSubset(of: keys((ours["images"] as? [[String: Any]]) ?? [])))
        let kinds = Set(frames(ours).compactMap { $0["kind"] as? String })
        #expect(
            kinds.isSubset(of: ["programCounter", "returnAddress", "asyncResumePoint", "omittedFrames", "truncated"]))
        #expect(kinds.contains("truncated"), "a cut stack ends with a truncated frame")
        #expect(ours["backtraceTime"] is Double)

        // `axiom symbolicate --json-lines`: the report on one line.
        let output = TemporaryDirectory()
        defer { output.remove() }
        let lines = ChildProcess.runAxiom(["symbolicate", processed.rawPath, "--json-lines"], outputIn: output.path)
        #expect(lines.termination.exitCode == 0)
        #expect(lines.stdout.split(separator: "\n").count == 1)
        #expect(lines.stdout.hasSuffix("}\n"))
        #expect(try JSONSerialization.jsonObject(with: Data(lines.stdout.utf8)) is [String: Any])
    }

    /// A crash three async calls deep on the concurrency pool: after the crashing function (`asyncInnermost`, a
    /// partial function run by the executor), the report lists its async callers as `asyncResumePoint` frames,
    /// symbolicated at the lines that await them, innermost first; the executor's frames follow.
    @Test("a crash in an async function shows the chain of its async callers")
    func asyncCallers() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash("async-crash", in: directory)
        let frames = processed.report.frames
        let crashing = try #require(frames.firstIndex { $0.function?.contains("asyncInnermost()") == true })
        let callers = frames[(crashing + 1)...].prefix { $0.kind == .asyncResumePoint }
        try #require(callers.count >= 2, "frames: \(frames.map { "\($0.kind) \($0.function ?? "?")" })")
        let main = "Tests/AxiomCrashProbe/main.swift"
        let middle = callers[callers.startIndex]
        let outer = callers[callers.startIndex + 1]
        #expect(middle.function?.contains("asyncMiddle()") == true, "\(middle)")
        #expect(outer.function?.contains("asyncOutermost()") == true, "\(outer)")
        #expect(middle.file?.hasSuffix(main) == true && middle.line == crashLine("async-middle", in: main))
        #expect(outer.file?.hasSuffix(main) == true && outer.line == crashLine("async-outer", in: main))
        // The executor's frames are still there, after the async callers.
        #expect(frames[(crashing + 1)...].contains { $0.function?.contains("swift_job_run") == true })
        let json = try json(processed)
        let kinds = ((json["threads"] as? [[String: Any]])?.first?["frames"] as? [[String: Any]] ?? [])
            .compactMap { $0["kind"] as? String }
        #expect(kinds.filter { $0 == "asyncResumePoint" }.count == callers.count)
        #expect(ChildProcess.readText(processed.textPath).contains("[async]"))
    }

    /// A service joins a crash to its trace: the task that crashed had announced its span (as the Hummingbird
    /// middleware does for each request), and the report names that span, not another task's.
    @Test("a crash in a task that announced a trace names the trace in the report")
    func crashNamesItsTrace() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let processed = try crash("traced-async-crash", in: directory)
        let trace = try #require(processed.report.raw.activeTrace)
        #expect(trace.traceIDHex == "101112131415161718191a1b1c1d1e1f")
        #expect(trace.spanIDHex == "2021222324252627")
        let json = try json(processed)
        let written = try #require(json["trace"] as? [String: String])
        #expect(written == ["traceId": trace.traceIDHex, "spanId": trace.spanIDHex])
        #expect(ChildProcess.readText(processed.textPath).contains("Trace: \(trace.traceIDHex) span 2021222324252627"))
        // A crash with no announced trace has none.
        let plain = TemporaryDirectory()
        defer { plain.remove() }
        #expect(try crash("async-crash", in: plain).report.raw.activeTrace == nil)
    }

    let probeC = "Tests/CAxiomCrashProbeSupport/axiom_crash_probe.c"

    @Test("the default observers are bootstrapped once for the process; a second bootstrap stops it")
    func observersBootstrapOnce() {
        let directory = TemporaryDirectory()
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: "observer-bootstrap")
        #expect(stderr.contains("observed 2"), "\(stderr)")
        #expect(termination.signal != nil, "child \(termination); stderr: \(stderr)")
        #expect(stderr.contains("ErrorObserverSystem.bootstrap may only be called once per process"), "\(stderr)")
    }

    @Test(
        "an application that bootstraps swift-log itself gets every framework line redacted, from one handler made once"
    )
    func applicationBootstrapsSwiftLog() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: "swift-log-bootstrap")
        #expect(termination.exitCode == 0, "child \(termination); stderr: \(stderr)")
        // A logger made before the bootstrap follows it; 100 level checks and 100 lines made one handler.
        #expect(stderr.contains("made 1 checked 100 lines 100 secrets 0 keys 100"), "\(stderr)")
    }
}
