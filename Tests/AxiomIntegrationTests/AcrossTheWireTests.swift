#if Hummingbird && OpenTelemetry && HTTPClient && Vapor && GRPC
import AsyncHTTPClient
import Axiom
import AxiomGRPC
import AxiomHTTPClient
import AxiomShopFixture
import AxiomTesting
import AxiomTracing
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import Hummingbird
import InMemoryTracing
import NIOCore
import SwiftProtobuf
import Testing
import Tracing
import Vapor

import struct AxiomHummingbird.ProblemDetailsMiddleware
import struct AxiomVapor.ProblemDetailsMiddleware

/// The terminal pipeline every server here decides with: the descriptor's fate, traced.
func wirePipeline(_ registry: ErrorRegistry) -> ErrorPipeline<FollowDescriptor> {
    ErrorPipeline(
        layer: Layer("request"), escalatesTo: nil,
        configuration: PipelineConfiguration(registry: registry, instrument: TracingInstrument())
    ) { FollowDescriptor() }
}

/// The errors the table answers, by name: a registered 429 with its own wait, a registered 422, a registered code
/// whose status comes from its category (401), and an error no catalog knows.
let wireErrors: [String: @Sendable () -> any Error] = [
    "rate": { DomainError(domain: "nwc", code: "RATE_LIMITED", retryAfter: .seconds(2)) },
    "quantity": { DomainError(domain: "shop", code: "INVALID_QUANTITY", message: "quantity=0") },
    "orders": { DomainError(domain: "shop", code: "NOT_SIGNED_IN") },
    "boom": { DatabaseDown() },
]

/// A Hummingbird service whose `/<name>` throws `wireErrors[name]`, and whose other routes `extra` adds.
func hummingbirdService(
    _ registry: ErrorRegistry, extra: (Hummingbird.Router<BasicRequestContext>) -> Void = { _ in }
) -> Hummingbird.Router<BasicRequestContext> {
    let router = Hummingbird.Router()
    router.add(middleware: Hummingbird.TracingMiddleware())
    router.add(middleware: AxiomHummingbird.ProblemDetailsMiddleware(pipeline: wirePipeline(registry)))
    for (name, error) in wireErrors { router.get(RouterPath(name)) { _, _ -> String in throw error() } }
    extra(router)
    return router
}

/// Runs a real Vapor application on a free loopback port, with `/<name>` throwing `wireErrors[name]` and the routes
/// `extra` adds, while `body` runs.
func withVaporService<Result: Sendable>(
    _ registry: ErrorRegistry, extra: (Vapor.Application) -> Void = { _ in },
    _ body: (Int) async throws -> Result
) async throws -> Result {
    var logger = Logger(label: "axiom.wire.vapor")
    logger.logLevel = .critical
    let app = try await Vapor.Application.make(.testing, logger: logger)
    app.middleware.use(Vapor.TracingMiddleware())
    app.middleware.use(AxiomVapor.ProblemDetailsMiddleware(pipeline: wirePipeline(registry)))
    for (name, error) in wireErrors { app.get(PathComponent(stringLiteral: name)) { _ -> String in throw error() } }
    extra(app)
    do {
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let port = try #require(app.http.server.shared.localAddress?.port)
        let result = try await body(port)
        await app.server.shutdown()
        try await app.asyncShutdown()
        return result
    } catch {
        await app.server.shutdown()
        try? await app.asyncShutdown()
        throw error
    }
}

/// `axiom.wire.Echo/Get`: its request names the error to throw (`wireErrors`), written with grpc-swift 2's
/// hand-written API over `google.protobuf.StringValue`.
struct WireService: RegistrableRPCService {
    static let get = MethodDescriptor(fullyQualifiedService: "axiom.wire.Echo", method: "Get")

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(
            forMethod: Self.get, deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(),
            serializer: ProtobufSerializer<Google_Protobuf_StringValue>()
        ) { request, _ -> StreamingServerResponse<Google_Protobuf_StringValue> in
            let single = try await ServerRequest(stream: request)
            throw (wireErrors[single.message.value] ?? { DatabaseDown() })()
        }
    }
}

/// What an adapter answered for an error, in the terms the three share.
struct WireAnswer: Equatable, CustomStringConvertible {
    var code: String
    /// The HTTP status; for gRPC the one its `ErrorInfo` names (its code is checked against `GRPCStatusTable`).
    var status: Int
    var detail: String
    var wait: Duration?
    var description: String { "\(code) \(status) \(wait.map { "\($0)" } ?? "-") \(detail)" }
}

/// Errors answered by three servers (Hummingbird, Vapor, gRPC) over the same registry, and read back by callers in
/// another service: the same identity, status, texts and wait whatever carried them.
@Suite("An error's identity across the wire", .timeLimit(.minutes(2)))
struct AcrossTheWireTests {
    /// An HTTP answer as its caller reads it.
    static func httpAnswer(_ port: Int, _ name: String, language: String) async throws -> WireAnswer {
        let answer = try await get(port, "/\(name)", headers: [("Accept-Language", language)])
        let body = try answer.json()
        return WireAnswer(
            code: try #require(body["code"] as? String), status: answer.status,
            detail: try #require(body["detail"] as? String),
            wait: answer.headers["retry-after"].flatMap(Int.init).map { .seconds($0) })
    }

    @Test(
        "the three adapters answer the same error with the same identity, status, texts and wait",
        arguments: ["rate", "quantity", "orders", "boom"], ["en", "tr"])
    func sameAnswerEverywhere(name: String, language: String) async throws {
        let registry = try makeServiceRegistry()
        let hummingbird = try await withServer(hummingbirdService(registry)) { port in
            try await Self.httpAnswer(port, name, language: language)
        }
        let vapor = try await withVaporService(registry) { port in
            try await Self.httpAnswer(port, name, language: language)
        }
        let grpc = try await withWireServer(registry) { client in
            let error = try await rpcFailure {
                try await client.unary(
                    request: ClientRequest(
                        message: Google_Protobuf_StringValue.with { $0.value = name },
                        metadata: ["accept-language": .string(language)]),
                    descriptor: WireService.get, serializer: ProtobufSerializer<Google_Protobuf_StringValue>(),
                    deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(), options: .defaults
                ) { try $0.message.value }
            }
            let peer = try #require(try GRPCStatusReader(registry: registry).read(error))
            #expect(error.code == GRPCStatusTable.code(forHTTPStatus: hummingbird.status))
            return WireAnswer(
                code: peer.code.description, status: peer.status,
                detail: error.message, wait: peer.retryAfter)
        }
        #expect(hummingbird == vapor)
        #expect(hummingbird == grpc)
        if name == "rate" { #expect(hummingbird.wait == .seconds(2)) }
        if name == "boom" {
            #expect(hummingbird.code == "axiom/unknownError" && !hummingbird.detail.contains("hunter2"))
        }
    }

    /// A caller (one framework) calls a peer (the other) through async-http-client: the peer's 429 is the caller's
    /// `nwc/RATE_LIMITED`, waited out on the caller's clock, and when the peer keeps refusing, the caller's client
    /// gets problem details naming the peer's code, in its own language, on a span of the peer's trace.
    @Test(arguments: ["hummingbird calls vapor", "vapor calls hummingbird"])
    func aPeersRateLimitCrossesFrameworks(roles: String) async throws {
        _ = SharedInMemoryTracer.tracer
        let calls = CallCount()
        let peerRegistry = try makeServiceRegistry()
        let callerRegistry = try makeServiceRegistry()
        let clock = ManualClock()
        let reader = ProblemReader(registry: callerRegistry)
        /// The caller's work: the peer's `/limited` (refused `limited` times) through a retry on the manual clock
        /// when `retrying`, else once.
        @Sendable func callPeer(_ peerPort: Int, retrying: Bool) async throws -> String {
            let call = { @Sendable () async throws -> String in
                let request = HTTPClientRequest(url: "http://127.0.0.1:\(peerPort)/limited")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10), reading: reader)
                return String(buffer: try await response.body.collect(upTo: 1 << 16))
            }
            guard retrying else { return try await call() }
            return try await OperationChain { RetryStage(configuration: .init(registry: callerRegistry), clock: clock) }
                .run("GET /limited") {
                    try await call()
                }
        }
        let limitedOnce = { @Sendable () throws -> String in
            guard calls.next() > 1 else {
                throw DomainError(domain: "nwc", code: "RATE_LIMITED", retryAfter: .seconds(2))
            }
            return "rates"
        }
        let alwaysLimited = { @Sendable () throws -> String in
            throw DomainError(domain: "nwc", code: "RATE_LIMITED", retryAfter: .seconds(2))
        }
        let peerIsVapor = roles == "hummingbird calls vapor"
        /// The peer serves `/limited` (once refused) and `/refusing` (always), and `body` runs with its port.
        @Sendable func withPeer(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
            if peerIsVapor {
                try await withVaporService(
                    peerRegistry,
                    extra: { app in
                        app.get("limited") { _ in try limitedOnce() }
                        app.get("refusing") { _ in try alwaysLimited() }
                    }, body)
            } else {
                try await withServer(
                    hummingbirdService(peerRegistry) { router in
                        router.get("limited") { _, _ in try limitedOnce() }
                        router.get("refusing") { _, _ in try alwaysLimited() }
                    }, body)
            }
        }
        /// The caller serves `/quote` (the peer's `/limited`, retried) and `/refused` (the peer's `/refusing`).
        @Sendable func withCaller(_ peerPort: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws
        {
            let refused = { @Sendable () async throws -> String in
                let request = HTTPClientRequest(url: "http://127.0.0.1:\(peerPort)/refusing")
                _ = try await HTTPClient.shared.execute(request, timeout: .seconds(10), reading: reader)
                return "unexpected"
            }
            if peerIsVapor {
                try await withServer(
                    hummingbirdService(callerRegistry) { router in
                        router.get("quote") { _, _ in try await callPeer(peerPort, retrying: true) }
                        router.get("refused") { _, _ in try await refused() }
                    }, body)
            } else {
                try await withVaporService(
                    callerRegistry,
                    extra: { app in
                        app.get("quote") { _ in try await callPeer(peerPort, retrying: true) }
                        app.get("refused") { _ in try await refused() }
                    }, body)
            }
        }
        try await withPeer { peerPort in
            try await withCaller(peerPort) { callerPort in
                // The peer's wait, on the caller's clock; then the quote.
                let quote = Task { try await get(callerPort, "/quote") }
                await clock.waitForSleepers(1)
                #expect(clock.requestedSleeps == [.seconds(2)])
                clock.advance(by: .seconds(2))
                let answer = try await quote.value
                #expect(answer.status == 200)
                #expect(answer.body == "rates")
                #expect(calls.value == 2)

                // A peer that keeps refusing: the caller answers its own client with the peer's code, in Turkish.
                let refused = try await get(callerPort, "/refused", headers: [("Accept-Language", "tr")])
                #expect(refused.status == 429)
                #expect(refused.headers["retry-after"] == "2")
                let body = try refused.json()
                #expect(body["code"] as? String == "nwc/RATE_LIMITED")
                #expect(body["title"] as? String == "Çok Fazla İstek")
                // The caller's trace reached the peer, and the caller's span names the peer's code and trace.
                let traceID = try #require(body["traceId"] as? String)
                var span: FinishedInMemorySpan?
                for _ in 0..<200 where span == nil {
                    span = SharedInMemoryTracer.tracer.finishedSpans.first {
                        $0.traceID == traceID && $0.attributes.string(TracingInstrument.peerCodeAttribute) != nil
                    }
                    if span == nil { try await Task.sleep(for: .milliseconds(10)) }
                }
                let caller = try #require(span, "no span of trace \(traceID) names the peer's code")
                #expect(caller.attributes.string(TracingInstrument.peerCodeAttribute) == "nwc/RATE_LIMITED")
                #expect(caller.attributes.string(TracingInstrument.peerTraceIdAttribute) == traceID)
            }
        }
    }
}

/// Runs `body` with a client of a real gRPC server over HTTP/2 on loopback serving ``WireService`` behind the
/// server interceptor over `registry`.
func withWireServer<Result: Sendable>(
    _ registry: ErrorRegistry, _ body: @Sendable (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> Result
) async throws -> Result {
    let server = GRPCServer(
        transport: .http2NIOPosix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
        services: [WireService()], interceptors: [ServerErrorInterceptor(pipeline: wirePipeline(registry))])
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.serve() }
        defer { server.beginGracefulShutdown() }
        let port = try #require(try await server.transport.listeningAddress.ipv4?.port)
        let transport = try HTTP2ClientTransport.Posix(
            target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
        return try await withGRPCClient(transport: transport) { client in try await body(client) }
    }
}

/// The `RPCError` a call threw.
func rpcFailure(_ body: () async throws -> some Any) async throws -> RPCError {
    do {
        _ = try await body()
    } catch let error as RPCError {
        return error
    }
    throw TestFailure("the call succeeded")
}
#endif
