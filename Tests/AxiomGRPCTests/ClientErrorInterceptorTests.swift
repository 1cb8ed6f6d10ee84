#if GRPC
import Axiom
import AxiomGRPC
import AxiomHTTP
import AxiomShopFixture
import AxiomTesting
import AxiomTracing
import GRPCCore
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
            let retry = RetryStage(registry: caller, clock: clock)
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
    }

    @Test("the server's span ends when the caller cancels before the answer: no response is ever produced")
    func spanEndsWhenTheCallerLeaves() async throws {
        let tracer = SharedInMemoryTracer.tracer
        let (handlerStarted, started) = AsyncStream.makeStream(of: Void.self)
        let marker = "cancelled-\(UInt64.random(in: 0...UInt64.max))"
        let outcome = try await withEchoServer(
            server: [ServerErrorInterceptor(pipeline: requestPipeline(try shopRegistry()))],
            client: [ClientErrorInterceptor(registry: ErrorRegistry())]
        ) { value in
            started.yield()
            return value
        } _: { client in
            try await withSpan("grpc-leaving-caller", ofKind: .client) { span in
                span.attributes["test.marker"] = marker
                let call = Task { try await client.hang(marker) }
                for await _ in handlerStarted { break }
                call.cancel()
                return await call.result
            }
        }
        #expect(throws: (any Error).self) { try outcome.get() }
        let caller = try #require(
            tracer.finishedSpans.first { $0.attributes.get("test.marker") == .string(marker) })
        // The whole server has stopped, so the call is over: its span has ended, as cancelled (not the server's
        // failure), and none of it is left open.
        let server = try #require(
            tracer.finishedSpans.first {
                $0.operationName == "axiom.test.Echo/Hang" && $0.spanContext.traceID == caller.spanContext.traceID
            })
        #expect(server.attributes.get("rpc.grpc.status_code") == .int64(1))
        #expect(server.status?.code != .error)
        #expect(
            !tracer.activeSpans.contains {
                $0.operationName == "axiom.test.Echo/Hang" && $0.spanContext.traceID == caller.spanContext.traceID
            })
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
        #expect(unreadable.kind == .unreadableProblem)
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
