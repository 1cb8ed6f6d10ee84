#if Hummingbird && OpenTelemetry
import AsyncHTTPClient
import AxiomTracing
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The README's example service, run as a user runs it (`AxiomExampleService --port 0 --collector …`), called
/// over HTTP: what its README transcript shows holds, and a crash it provokes reaches the collector joined to the
/// request's trace.
@Suite("Example service", .timeLimit(.minutes(2)))
struct ExampleServiceTests {
    func post(_ url: String, language: String? = nil) async throws -> (status: Int, headers: HTTPHeaders, body: String)
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        if let language { request.headers.add(name: "Accept-Language", value: language) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers, String(buffer: body))
    }

    @Test func itAnswersAsTheReadmeShowsAndExportsItsCrashes() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let crashes = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-example-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: crashes) }
        let service = Process()
        service.executableURL = URL(fileURLWithPath: OpenTelemetryTests.buildDirectory + "/AxiomExampleService")
        service.arguments = ["--port", "0", "--crash-directory", crashes, "--collector", receiver.collector]
        let output = Pipe()
        service.standardOutput = output
        service.standardError = FileHandle.nullDevice
        try service.run()
        defer { if service.isRunning { service.terminate() } }
        let text = try firstLine(of: output)
        let port = try #require(Int(text.replacingOccurrences(of: "listening on 127.0.0.1:", with: "")), "\(text)")
        let base = "http://127.0.0.1:\(port)"

        let limited = try await post(base + "/invoices/limited-42/pay", language: "tr, en;q=0.5")
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"].first == "60")
        #expect(limited.headers["Content-Language"].first == "tr")
        #expect(limited.body.contains("\"title\":\"Çok Fazla İstek\""))
        #expect(!limited.body.contains("rate limiting"))  // the wallet's own words stay in the logs

        let flaky = try await post(base + "/invoices/flaky-9/pay")
        #expect(flaky.status == 200 && flaky.body.contains("\"invoice\":\"flaky-9\""))

        let methods = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: base + "/payment-methods"), timeout: .seconds(30))
        #expect(String(buffer: try await methods.body.collect(upTo: 1 << 20)) == "[\"visa •••• 4242\"]")

        let crash = try await post(base + "/crash")
        #expect(crash.status == 200)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(crash.body.utf8)) as? [String: Any])
        #expect(summary["exported"] as? Bool == true)
        #expect((summary["crashedIn"] as? String)?.contains("settleLedger") == true)
        let traceID = try #require(summary["traceId"] as? String)

        service.interrupt()  // SIGINT: a graceful shutdown flushes the exporters
        service.waitUntilExit()
        #expect(service.terminationReason == .exit && service.terminationStatus == 0)

        let (requests, errors) = try await receiver.received()
        #expect(errors.isEmpty, "\(errors)")
        let records = requests.filter { $0.signal == "logs" }.flatMap { request in
            request.request.list("resourceLogs").flatMap { $0.list("scopeLogs") }.flatMap { $0.list("logRecords") }
        }
        let fatal = try #require(records.first { $0["severityText"] as? String == "FATAL" })
        let bytes = try #require(TraceIdentifiers(traceID: traceID, spanID: "").traceIDBytes)
        #expect(fatal["traceId"] as? String == base64(bytes))
        let spans = requests.filter { $0.signal == "traces" }.flatMap { request in
            request.request.list("resourceSpans").flatMap { $0.list("scopeSpans") }.flatMap { $0.list("spans") }
        }
        #expect(spans.contains { $0["traceId"] as? String == base64(bytes) })
        #expect(
            spans.contains { span in span.list("events").contains { $0["name"] as? String == "axiom.resilience.retry" }
            })
    }
}
#endif
