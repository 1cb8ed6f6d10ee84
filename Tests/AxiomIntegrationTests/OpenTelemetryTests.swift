#if Hummingbird && OpenTelemetry
import AsyncHTTPClient
import Axiom
import AxiomCrash
import AxiomOpenTelemetry
import AxiomTesting
import AxiomTracing
import Foundation
import InMemoryLogging
import Logging
import NIOCore
import OTel
import ServiceLifecycle
import Synchronization
import Testing
import Tracing

/// The OTLP receiver of `Tests/OTLPReceiver/receiver.py`, on loopback: it decodes every request with the
/// official OTLP protobuf definitions and gives back what it decoded, as the protobuf JSON mapping.
final class OTLPReceiver: Sendable {
    let process: Process
    let input: Pipe
    let port: Int

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OTLPReceiver/receiver.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--lifetime", "120"]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let text = try firstLine(of: output)
        guard text.hasPrefix("port "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw TestFailure("the OTLP receiver did not start: \(text)")
        }
        self.port = port
    }

    var collector: String { "http://127.0.0.1:\(port)" }

    /// Everything decoded so far: `(signal, request)` pairs, and the receiver's decoding errors.
    func received() async throws -> (requests: [(signal: String, request: [String: Any])], errors: [String]) {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: collector + "/received"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
        let requests = (json["received"] as? [[String: Any]] ?? []).map {
            (signal: $0["signal"] as? String ?? "", request: $0["request"] as? [String: Any] ?? [:])
        }
        return (requests, json["errors"] as? [String] ?? [])
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// The protobuf JSON mapping's nested lists, made easy to walk.
extension Dictionary where Key == String, Value == Any {
    func list(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    func object(_ key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }

    /// An OTLP attribute list's value for `key`, as the JSON mapping writes it (`{"stringValue": …}`, …).
    func attribute(_ key: String, in field: String = "attributes") -> [String: Any]? {
        list(field).first { $0["key"] as? String == key }?["value"] as? [String: Any]
    }

    func stringAttribute(_ key: String) -> String? { attribute(key)?["stringValue"] as? String }
}

/// Base64 of bytes, as the protobuf JSON mapping writes `bytes` fields (trace and span ids).
func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

/// The framework's telemetry reaches a real OTLP/HTTP receiver, which decodes it with the official definitions.
@Suite("OpenTelemetry export", .timeLimit(.minutes(2)))
struct OpenTelemetryTests {
    static let buildDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().path

    /// Crashes the probe in a task that announced a trace, and processes its report.
    func crashReport(in directory: String) throws -> ProcessedCrashReport {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: Self.buildDirectory + "/AxiomCrashProbe")
        probe.arguments = [directory, "traced-async-crash"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        #expect(probe.terminationReason == .uncaughtSignal)
        let outcomes = try CrashReportProcessor(directory: directory).processPendingReports()
        guard outcomes.count == 1, case .processed(let processed) = outcomes[0] else {
            throw TestFailure("the probe's crash was not processed: \(outcomes)")
        }
        return processed
    }

    func configuration(_ collector: String) -> OpenTelemetryExport.Configuration {
        var otel = OTel.Configuration.default
        otel.logs.batchLogRecordProcessor.scheduleDelay = .milliseconds(50)
        otel.traces.batchSpanProcessor.scheduleDelay = .milliseconds(50)
        otel.metrics.exportInterval = .milliseconds(200)
        otel.diagnosticLogLevel = .error
        return .init(collector: collector, serviceName: "axiom-test", otel: otel)
    }

    @Test func logsMetricsTracesAndACrashReportArriveDecoded() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-otlp-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let crash = try crashReport(in: directory)

        let export = try OpenTelemetryExport(configuration(receiver.collector))
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.otlp", domains: ["otlp"],
                descriptors: [
                    ErrorDescriptor(code: ErrorCode("otlp", "BROKEN"), category: .api, disposition: .handle),
                    ErrorDescriptor(code: ErrorCode("otlp", "BUSY"), category: .api, disposition: .handle),
                ]))
        // A series two threads keep counting is striped; its flusher waits an hour, so only the export's flush on
        // graceful shutdown can bring the striped counts to the collector.
        let striped = MetricsObserver(factory: export.metricsFactory, flushInterval: .seconds(3_600))
        let busy = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [striped])
        ) { FollowDescriptor() }
        let rounds = 2 * MetricsObserver.turnsBeforeStriping
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: registry,
                observers: [
                    MetricsObserver(factory: export.metricsFactory), TracingErrorObserver(tracer: export.tracer),
                ],
                instrument: TracingInstrument(tracer: export.tracer))
        ) { FollowDescriptor() }
        let group = ServiceGroup(
            configuration: .init(services: [export], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let logger = Logger(label: "axiom.test", factory: export.makeLogHandler)
            export.tracer.withSpan("checkout") { _ in
                logger.error("login failed: password=hunter2 for alice@example.com")
                _ = try? pipeline.decide(DomainError(domain: "otlp", code: "BROKEN"), operation: "charge")
            }
            try await export.crashReports.export(crash)
            takeTurnsOnTwoThreads(rounds: rounds) {
                _ = try? busy.decide(DomainError(domain: "otlp", code: "BUSY"), operation: "poll")
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // Released only now: its release flushes too, and must not be what brought the counts.
        withExtendedLifetime(striped) {}
        // Everything was sent before the shutdown deadline.
        #expect(export.droppedAtShutdown.isEmpty)

        let (requests, errors) = try await receiver.received()
        #expect(errors.isEmpty, "\(errors)")
        let records = requests.filter { $0.signal == "logs" }.flatMap { request in
            request.request.list("resourceLogs").flatMap { $0.list("scopeLogs") }.flatMap { $0.list("logRecords") }
        }
        // The crash: one FATAL record with the trace the crashed task announced.
        let crashRecord = try #require(records.first { $0["eventName"] as? String == "axiom.crash" })
        #expect(crashRecord["severityNumber"] as? String == "SEVERITY_NUMBER_FATAL")
        #expect(crashRecord["severityText"] as? String == "FATAL")
        #expect(crashRecord["traceId"] as? String == base64(Array(0x10...0x1f)))
        #expect(crashRecord["spanId"] as? String == base64(Array(0x20...0x27)))
        #expect(crashRecord.object("body")["stringValue"] as? String == crash.report.summary)
        #expect(crashRecord.stringAttribute("exception.type") == "SIGSEGV")
        // The report's stable id: a record sent again for the same report carries the same one.
        #expect(crashRecord.stringAttribute("log.record.uid") == crash.reportID)
        let frames = (crashRecord.attribute("axiom.crash.frames")?["arrayValue"] as? [String: Any])?["values"]
        let frameTexts = (frames as? [[String: Any]] ?? []).compactMap { $0["stringValue"] as? String }
        #expect(frameTexts.contains { $0.contains("asyncInnermost") }, "\(frameTexts)")
        // Each frame as the symbolicated text report prints it, with its source location where it has one.
        let innermost = try #require(frameTexts.first { $0.contains("asyncInnermost") })
        #expect(innermost.contains(" at ") && innermost.contains("main.swift:"), "\(innermost)")
        #expect(frameTexts.allSatisfy { crash.report.text.contains($0) }, "\(frameTexts)")
        #expect(crashRecord.stringAttribute("exception.stacktrace") == frameTexts.joined(separator: "\n"))
        let modules = (crashRecord.attribute("axiom.crash.modules")?["arrayValue"] as? [String: Any])?["values"]
        let buildIDs = (modules as? [[String: Any]] ?? []).compactMap { module -> String? in
            let pairs = (module["kvlistValue"] as? [String: Any])?["values"] as? [[String: Any]] ?? []
            return (pairs.first { $0["key"] as? String == "build_id" }?["value"] as? [String: Any])?["stringValue"]
                as? String
        }
        #expect(buildIDs.contains { !$0.isEmpty })
        // What a backend groups by: the report's fingerprint, its algorithm's version, and whether it is provisional.
        #expect(crashRecord.stringAttribute("axiom.crash.fingerprint") == crash.report.fingerprint.value)
        #expect(crashRecord.stringAttribute("axiom.version") == AxiomVersion.current)
        #expect("\(crashRecord.attribute("axiom.crash.fingerprint.version")?["intValue"] ?? "")" == "1")
        #expect(
            crashRecord.attribute("axiom.crash.fingerprint.provisional")?["boolValue"] as? Bool
                == crash.report.fingerprint.isProvisional)
        let reportJSON = try #require(crashRecord.stringAttribute("axiom.crash.report"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(reportJSON.utf8)) as? [String: Any])
        #expect((report["trace"] as? [String: String])?["traceId"] == "101112131415161718191a1b1c1d1e1f")
        let crashResource = requests.first { $0.signal == "logs" && "\($0.request)".contains("axiom.crash") }
        let resource = crashResource?.request.list("resourceLogs").first?.object("resource") ?? [:]
        #expect(resource.stringAttribute("service.name") == "axiom-test")

        // A log line: redacted before it left the process, with the span's ids.
        let line = try #require(
            records.first { ($0.object("body")["stringValue"] as? String)?.hasPrefix("login") == true })
        let body = line.object("body")["stringValue"] as? String ?? ""
        #expect(!body.contains("hunter2") && !body.contains("alice@example.com"), "\(body)")
        #expect((line["traceId"] as? String)?.isEmpty == false)

        // The span: failed by the handled error, with the error's event.
        let spans = requests.filter { $0.signal == "traces" }.flatMap { request in
            request.request.list("resourceSpans").flatMap { $0.list("scopeSpans") }.flatMap { $0.list("spans") }
        }
        let checkout = try #require(spans.first { $0["name"] as? String == "checkout" })
        #expect(checkout.object("status")["code"] as? String == "STATUS_CODE_ERROR")
        let event = try #require(checkout.list("events").first { $0["name"] as? String == "axiom.error" })
        #expect(event.stringAttribute("error.type") == "otlp/BROKEN")
        #expect(event.stringAttribute("axiom.error.disposition") == "handle")
        #expect(line["traceId"] as? String == checkout["traceId"] as? String)

        // The metric: the error counted by domain, code, disposition and layer.
        let metrics = requests.filter { $0.signal == "metrics" }.flatMap { request in
            request.request.list("resourceMetrics").flatMap { $0.list("scopeMetrics") }.flatMap { $0.list("metrics") }
        }
        let points = metrics.filter { $0["name"] as? String == MetricsObserver.label }.flatMap {
            $0.object("sum").list("dataPoints")
        }
        let point = try #require(points.first { $0.stringAttribute("code") == "BROKEN" })
        #expect(point.stringAttribute("domain") == "otlp")
        #expect(point.stringAttribute("disposition") == "handle")
        #expect(point.stringAttribute("layer") == "application")
        #expect(point["asInt"] as? String == "1" || point["asDouble"] as? Double == 1)
        // The striped series: every count, in the last export (sums are cumulative).
        let busyCounts = points.filter { $0.stringAttribute("code") == "BUSY" }.compactMap { point in
            (point["asInt"] as? String).flatMap(Int.init) ?? (point["asDouble"] as? Double).map { Int($0) }
        }
        #expect(busyCounts.max() == 2 * rounds, "\(busyCounts)")
    }

    @Test func aCollectorThatNeverAnswersHoldsShutdownUpForTheDeadlineOnlyAndTheDropIsCounted() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        // A collector that reads each request and never answers.
        var configuration = configuration(receiver.collector + "/silent")
        // Each exporter would wait an hour for its answer: a shutdown that waited for one would run into the suite's
        // time limit, which fails the test, so no bound on the wall clock is needed here.
        for timeout in [
            \OTel.Configuration.logs.otlpExporter.timeout, \.metrics.otlpExporter.timeout,
            \.traces.otlpExporter.timeout, \.logs.batchLogRecordProcessor.exportTimeout,
            \.metrics.exportTimeout, \.traces.batchSpanProcessor.exportTimeout,
        ] as [WritableKeyPath<OTel.Configuration, Duration>] {
            configuration.otel[keyPath: timeout] = .seconds(3600)
        }
        configuration.shutdownTimeout = .seconds(1)
        let warnings = InMemoryLogHandler()
        let export = try OpenTelemetryExport(configuration, logger: Logger(label: "test", factory: { _ in warnings }))
        let group = ServiceGroup(
            configuration: .init(services: [export], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let elapsed = try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // Something for each exporter to send.
            Logger(label: "axiom.test", factory: export.makeLogHandler).error("unsent")
            export.tracer.withSpan("unsent") { _ in }
            export.metricsFactory.makeCounter(label: "axiom_test_unsent_total", dimensions: []).increment(by: 1)
            let start = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return start.duration(to: .now)
        }
        // Every exporter was cut off at the deadline, and that is counted and logged.
        #expect(export.droppedAtShutdown == [.logs, .metrics, .traces])
        let warning = try #require(warnings.entries.first { $0.level == .warning })
        #expect(warning.metadata["dropped_count"] == "3")
        #expect(warning.metadata["dropped_signals"] == "logs,metrics,traces")
        // The deadline was waited out (ServiceLifecycle sleeps it on the continuous clock; a loaded machine can only
        // make it longer), and the exporters were then cut off, as the counts above show.
        #expect(elapsed >= .seconds(1), "\(elapsed)")
    }

    @Test func aCollectorThatRefusesTheReportIsAClearErrorAndNotRetried() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-otlp-r-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let crash = try crashReport(in: directory)
        let exporter = CrashReportExporter(
            endpoint: receiver.collector + "/status/400/v1/logs", serviceName: "axiom-test", maxAttempts: 3)
        do {
            try await exporter.export(crash)
            Issue.record("a refused report was reported as exported")
        } catch let error as CrashReportExporter.ExportError {
            #expect(error.status == 400)
            #expect(error.description == "the collector refused the crash report with 400: refused by the test")
        }
        // Nothing was decoded: the refusal came before any decoding, and the report's files are still there.
        #expect(try await receiver.received().requests.isEmpty)
        #expect(FileManager.default.fileExists(atPath: crash.jsonPath))
    }
}
#endif
