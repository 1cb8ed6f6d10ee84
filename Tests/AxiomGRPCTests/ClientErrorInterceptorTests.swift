#if GRPC
import Axiom
import AxiomGRPC
import AxiomHTTP
import AxiomShopFixture
import AxiomTesting
import AxiomTracing
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import InMemoryTracing
import Synchronization
import Testing
import Tracing

/// The `RPCError` a caller reading with `caller` gets when the shop's handler throws `error`.
private func shopAnswer(
    to error: some Error & Sendable, shop: ErrorRegistry, caller: ErrorRegistry, metadata: Metadata = [:]
) async throws -> RPCError {
    try await withEchoServer(
        server: [ServerErrorInterceptor(pipeline: requestPipeline(shop))],
        client: [ClientErrorInterceptor(registry: caller)]
    ) { _ in
        throw error
    } _: { client in
        try await rpcError { try await client.get("x", metadata: metadata) }
    }
}

@Suite("Reading a peer's gRPC error back")
struct ClientErrorInterceptorTests {
    @Test("the peer's answer is its error: the code, the wait, the message, the gRPC code and status in metadata")
    func peerError() async throws {
        let server = try shopRegistry()
        let caller = ErrorRegistry()
        let error = try await shopAnswer(
            to: DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds(12)), shop: server,
            caller: caller, metadata: ["accept-language": "tr"])
        #expect(error.code == .resourceExhausted)
        let peer = try #require(error.cause as? DomainError)
        #expect(peer.errorCode == ErrorCode("shop", "RATE_LIMITED"))
        #expect(peer.retryAfter == .seconds(12))
        #expect(peer.message == "Çok fazla istek. Daha sonra yeniden deneyin.")
        #expect(peer.metadata["grpcCode"] == "resourceExhausted")
        #expect(peer.metadata["status"] == "429")
        // Decided by the caller, the RPCError is the peer's code with its wait.
        let identity = caller.identity(of: error)
        #expect(identity.code == ErrorCode("shop", "RATE_LIMITED"))
        #expect(identity.retryAfter == .seconds(12))
    }

    @Test("a code as its catalog writes it crosses exactly, under the UPPER_SNAKE_CASE reason AIP-193 asks for")
    func exactCode() async throws {
        let server = try shopRegistry()
        let caller = ErrorRegistry()
        let error = try await shopAnswer(to: DatabaseDown(), shop: server, caller: caller)
        let info = try #require(try error.unpackGoogleRPCStatus()?.details.lazy.compactMap(\.errorInfo).first)
        #expect(info.reason == "UNKNOWN_ERROR" && info.domain == "axiom")
        #expect((error.cause as? DomainError)?.errorCode == ErrorCatalog.unknownCode)
        #expect(caller.identity(of: error).code == ErrorCatalog.unknownCode)
    }

    @Test("a RetryStage over the call waits exactly the peer's RetryInfo, then calls again and succeeds")
    func retryWaitsThePeersWait() async throws {
        let server = try shopRegistry()
        let caller = try shopRegistry()
        let calls = Atomic<Int>(0)
        let clock = ManualClock()
        let reply = try await withEchoServer(
            server: [ServerErrorInterceptor(pipeline: requestPipeline(server))],
            client: [ClientErrorInterceptor(registry: caller)]
        ) { value in
            if calls.add(1, ordering: .relaxed).newValue == 1 {
                throw DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds(7))
            }
            return value
        } _: { client in
            let retry = RetryStage(configuration: .init(registry: caller), clock: clock)
            let call = Task { try await retry.run("echo") { try await client.get("again") } }
            await clock.waitForSleepers(1)
            clock.advanceToNextDeadline()
            return try await call.value
        }
        #expect(reply == "again")
        #expect(clock.requestedSleeps == [.seconds(7)])
        #expect(calls.load(ordering: .relaxed) == 2)
    }

    @Test("the caller's trace crosses the call: the peer's answer names it, and the caller's span records the peer")
    func traceCrosses() async throws {
        let tracer = SharedInMemoryTracer.tracer
        let server = try shopRegistry()
        let caller = ErrorRegistry()
        let (error, traceId) = try await withEchoServer(
            server: [ServerErrorInterceptor(pipeline: requestPipeline(server))],
            client: [ClientErrorInterceptor(registry: caller)]
        ) { _ in
            throw DomainError(domain: "shop", code: "LEDGER_DOWN")
        } _: { client in
            try await withSpan("grpc-caller", ofKind: .client) { _ in
                let traceId = try #require(TraceIdentifiers.current?.traceID)
                return (try await rpcError { try await client.get("x") }, traceId)
            }
        }
        let peer = try #require(error.cause as? DomainError)
        #expect(peer.metadata["traceId"] == traceId)
        let callerSpan = try #require(tracer.finishedSpans.first { $0.operationName == "grpc-caller" })
        #expect(callerSpan.attributes.get(TracingInstrument.peerCodeAttribute) == .string("shop/LEDGER_DOWN"))
        #expect(callerSpan.attributes.get("axiom.peer.trace_id") == .string(traceId))
        // The server's span is the caller's child, failed: `internal` is the server's failure.
        let serverSpan = try #require(
            tracer.finishedSpans.first {
                $0.operationName == "axiom.test.Echo/Get" && $0.spanContext.traceID == callerSpan.spanContext.traceID
            })
        #expect(serverSpan.status?.code == .error)
        #expect(serverSpan.attributes.get("error.type") == .string("shop/LEDGER_DOWN"))
        #expect(serverSpan.attributes.get("rpc.grpc.status_code") == .int64(13))
        #expect(serverSpan.attributes.get("rpc.system") == .string("grpc"))
        #expect(serverSpan.attributes.get("rpc.service") == .string("axiom.test.Echo"))
        #expect(serverSpan.attributes.get("rpc.method") == .string("Get"))
    }

    @Test("the server's span ends when the caller cancels before the answer: no response is ever produced")
    func spanEndsWhenTheCallerLeaves() async throws {
        let (result, server) = try await leaving(
            EchoService.hang, through: requestPipeline(try shopRegistry())
        ) { client, marker in
            _ = try await client.hang(marker)
        }
        #expect(throws: (any Error).self) { try result.get() }
        // The whole server has stopped, so the call is over: its span has ended, as cancelled (not the server's
        // failure), and none of it is left open.
        #expect(server.attributes.get("rpc.grpc.status_code") == .int64(1))
        #expect(server.status?.code != .error)
        #expect(
            !SharedInMemoryTracer.tracer.activeSpans.contains {
                $0.operationName == "axiom.test.Echo/Hang" && $0.spanContext.traceID == server.spanContext.traceID
            })
    }

    @Test("a caller that leaves a stream is a cancellation, ignored, and no failure of the server's span")
    func callerLeavesAStream() async throws {
        let recorder = RecordingObserver()
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil,
            configuration: PipelineConfiguration(registry: try shopRegistry(), observers: [recorder])
        ) { FollowDescriptor() }
        let (_, server) = try await leaving(EchoService.drip, through: pipeline) { client, marker in
            try await client.drip(marker) { _ in }
        }
        // The write after the caller left failed; that is the cancellation, ignored, not a handled server error.
        #expect(recorder.records.map(\.event.code) == [ErrorCatalog.cancellationCode])
        #expect(recorder.dispositions == [.ignore])
        #expect(server.attributes.get("rpc.grpc.status_code") == .int64(1))
        #expect(server.status?.code != .error)
    }

    /// Calls `method` with `call` under a CLIENT span of its own, and cancels the call once the server's handler has
    /// started; returns how the call ended and the server's span of it, once the whole server has stopped.
    func leaving(
        _ method: MethodDescriptor, through pipeline: ErrorPipeline<FollowDescriptor>,
        _ call: @escaping @Sendable (GRPCClient<HTTP2ClientTransport.Posix>, String) async throws -> Void
    ) async throws -> (Result<Void, any Error>, FinishedInMemorySpan) {
        let tracer = SharedInMemoryTracer.tracer
        let (handlerStarted, started) = AsyncStream.makeStream(of: Void.self)
        let marker = "leaving-\(UInt64.random(in: 0...UInt64.max))"
        let result = try await withEchoServer(
            server: [ServerErrorInterceptor(pipeline: pipeline)],
            client: [ClientErrorInterceptor(registry: ErrorRegistry())]
        ) { value in
            started.yield()
            return value
        } _: { client in
            await withSpan("grpc-leaving-caller", ofKind: .client) { span in
                span.attributes["test.marker"] = marker
                let running = Task { try await call(client, marker) }
                for await _ in handlerStarted { break }
                running.cancel()
                return await running.result
            }
        }
        let caller = try #require(
            tracer.finishedSpans.first { $0.attributes.get("test.marker") == .string(marker) })
        let server = try #require(
            tracer.finishedSpans.first {
                $0.operationName == method.fullyQualifiedMethod && $0.spanContext.traceID == caller.spanContext.traceID
            })
        return (result, server)
    }

    @Test("details a peer sends that cannot be read are an UnreadableAnswer inside the RPCError, not a trap")
    func unreadableDetails() async throws {
        let caller = ErrorRegistry()
        let error = try await withEchoServer(server: [], client: [ClientErrorInterceptor(registry: caller)]) { _ in
            throw RPCError(
                code: .aborted, message: "conflict",
                metadata: [GRPCStatusReader.detailsKey: .binary([0xFF, 0xFF, 0xFF, 0xFF])])
        } _: { client in
            try await rpcError { try await client.get("x") }
        }
        #expect(error.code == .aborted)
        let unreadable = try #require(error.cause as? UnreadableAnswer)
        #expect(unreadable.code == .unreadableProblem)
        #expect(unreadable.status == 409)
        #expect(caller.identity(of: error).code == ErrorCode("axiom.http.peer", "unreadableProblem"))
    }

    @Test("an RPCError without details keeps its code, and is identified by its status")
    func withoutDetails() async throws {
        let caller = ErrorRegistry()
        let error = try await withEchoServer(server: [], client: [ClientErrorInterceptor(registry: caller)]) { _ in
            throw RPCError(code: .unavailable, message: "down for maintenance")
        } _: { client in
            try await rpcError { try await client.get("x") }
        }
        #expect(error.code == .unavailable)
        #expect(error.cause == nil)
        #expect(caller.identity(of: error).code == ErrorCode("axiom.http", "503"))
    }
}
#endif
