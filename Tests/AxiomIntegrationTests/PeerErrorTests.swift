#if Hummingbird && OpenTelemetry && HTTPClient
import AsyncHTTPClient
import Axiom
import AxiomHTTPClient
import AxiomHummingbird
import AxiomTesting
import AxiomTracing
import Foundation
import Hummingbird
import NIOCore
import Synchronization
import Testing
import Tracing

/// How many times a route was called.
final class CallCount: Sendable {
    private let count = Mutex(0)
    /// Counts a call; the count with it.
    func next() -> Int {
        count.withLock {
            $0 += 1; return $0
        }
    }
    var value: Int { count.withLock { $0 } }
}

/// A service (B) answers with problem details; its caller (A), another service with a registry of its own, reads
/// the answer back through async-http-client as B's error: decided, retried and traced by B's identity.
@Suite("A peer's error read back by its caller", .timeLimit(.minutes(1)))
struct PeerErrorTests {
    /// B: `/rates` is rate limited (`nwc/RATE_LIMITED`, Retry-After 2 s) for its first `limited` calls, then
    /// answers; `/down` is a proxy's plain 503; `/fine` answers.
    static func peer(limited: Int, calls: CallCount) throws -> Router<BasicRequestContext> {
        let registry = try makeServiceRegistry()
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, instrument: TracingInstrument())
        ) { FollowDescriptor() }
        let router = Router()
        router.add(middleware: TracingMiddleware())
        router.add(middleware: ProblemDetailsMiddleware(pipeline: pipeline))
        router.get("rates") { _, _ -> String in
            guard calls.next() > limited else {
                throw DomainError(domain: "nwc", code: "RATE_LIMITED", retryAfter: .seconds(2))
            }
            return "rates"
        }
        router.get("down") { _, _ -> Response in
            Response(
                status: .serviceUnavailable, headers: [.contentType: "text/html", .retryAfter: "7"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "<h1>503 Service Unavailable</h1>")))
        }
        router.get("fine") { _, _ -> String in "fine" }
        return router
    }

    /// A's call of B's `path`: B's error thrown, a success's body returned.
    static func call(
        _ port: Int, _ path: String, reader: ProblemReader, headers: [(String, String)] = [],
        client: HTTPClient = .shared
    ) async throws -> String {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(10), reading: reader)
        return String(buffer: try await response.body.collect(upTo: 1 << 16))
    }

    @Test func aPeersRateLimitIsWaitedOutByTheCallersRetryOnItsClock() async throws {
        let calls = CallCount()
        try await withServer(Self.peer(limited: 1, calls: calls)) { port in
            let registry = try makeServiceRegistry()
            let reader = ProblemReader(registry: registry)
            let clock = ManualClock()
            let waits = Mutex<[Duration]>([])
            let chain = OperationChain {
                RetryStage(
                    configuration: .init(
                        registry: registry, onRetry: { _, wait in waits.withLock { $0.append(wait) } }), clock: clock)
            }
            let result = Task {
                try await chain.run("GET /rates") { try await Self.call(port, "/rates", reader: reader) }
            }
            // B's 429 is A's nwc/RATE_LIMITED: its policy (60 s) honours B's Retry-After, 2 s.
            await clock.waitForSleepers(1)
            #expect(clock.requestedSleeps == [.seconds(2)])
            #expect(waits.withLock { $0 } == [.seconds(2)])
            #expect(calls.value == 1)
            clock.advance(by: .seconds(2))
            #expect(try await result.value == "rates")
            #expect(calls.value == 2)
        }
    }

    @Test func theCallerSeesThePeersCodeWaitAndTextsInItsLanguage() async throws {
        try await withServer(Self.peer(limited: .max, calls: CallCount())) { port in
            let reader = ProblemReader(registry: try makeServiceRegistry())
            let error = try await #require(throws: DomainError.self) {
                try await Self.call(port, "/rates", reader: reader, headers: [("Accept-Language", "tr")])
            }
            #expect(error.errorCode == ErrorCode("nwc", "RATE_LIMITED"))
            #expect(error.retryAfter == .seconds(2))
            #expect(error.message == "Cüzdan istekleri sınırlıyor. Bir dakika sonra yeniden denenecek.")
            #expect(error.metadata["title"] == "Çok Fazla İstek")
            #expect(error.metadata["status"] == "429")
            // The caller's registry decides it with the registered fate.
            #expect(reader.registry.resolve(error).descriptor.retry?.delay == .seconds(60))
        }
    }

    @Test func anErrorAnswerThatIsNotProblemDetailsIsItsStatusWithItsWait() async throws {
        try await withServer(Self.peer(limited: 0, calls: CallCount())) { port in
            let reader = ProblemReader(registry: ErrorRegistry())
            let error = try await #require(throws: DomainError.self) {
                try await Self.call(port, "/down", reader: reader)
            }
            #expect(error.errorCode == ErrorCode("axiom.http", "503"))
            #expect(error.retryAfter == .seconds(7))
            #expect(!error.message.contains("Service Unavailable"))
        }
    }

    @Test func aSuccessIsReturnedWithItsBodyUnread() async throws {
        try await withServer(Self.peer(limited: 0, calls: CallCount())) { port in
            let body = try await Self.call(port, "/fine", reader: ProblemReader(registry: ErrorRegistry()))
            #expect(body == "fine")
        }
    }

    /// With a client that traces (it injects the context itself, under its CLIENT span) and one whose tracing is
    /// off (the reader's call injects it through the bootstrapped instrument), B answers within A's trace.
    @Test(arguments: [true, false])
    func thePeerContinuesTheCallersTraceAndTheCallersSpanNamesItsCode(clientTraces: Bool) async throws {
        _ = SharedTracer.tracer  // bootstrapped before the span starts
        var configuration = HTTPClient.Configuration()
        if !clientTraces { configuration.tracing.tracer = nil }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let name = "peer-error caller \(clientTraces)"
        do {
            try await withServer(Self.peer(limited: .max, calls: CallCount())) { port in
                let reader = ProblemReader(registry: try makeServiceRegistry())
                let (traceID, error) = try await withSpan(name) { _ in
                    let traceID = try #require(TraceIdentifiers.current?.traceID)
                    let error = await #expect(throws: DomainError.self) {
                        try await Self.call(port, "/rates", reader: reader, client: client)
                    }
                    return (traceID, error)
                }
                #expect(error?.metadata["traceId"] == traceID)
                let span = try #require(SharedTracer.finished(name).first)
                #expect(span.attributes.string(TracingInstrument.peerCodeAttribute) == "nwc/RATE_LIMITED")
                #expect(span.attributes.string(TracingInstrument.peerTraceIdAttribute) == traceID)
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
#endif
#if Hummingbird && OpenTelemetry && !HTTPClient
import Testing

@Test(.disabled("needs the HTTPClient trait as well: swift test --enable-all-traits"))
func peerErrorTestsNeedTheHTTPClientTrait() {}
#endif
