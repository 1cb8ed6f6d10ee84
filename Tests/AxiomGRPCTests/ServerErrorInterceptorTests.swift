#if GRPC
import Axiom
import AxiomGRPC
import AxiomHTTP
import AxiomShopFixture
import AxiomTesting
import GRPCCore
import GRPCProtobuf
import InMemoryTracing
import SwiftProtobuf
import Synchronization
import Testing
import Tracing

@Suite("Answering a gRPC call's error with its identity")
struct ServerErrorInterceptorTests {
    @Test("a registered 429 is resourceExhausted, with ErrorInfo, RetryInfo and a Turkish LocalizedMessage")
    func rateLimited() async throws {
        let registry = try shopRegistry()
        let error = try await withEchoServer(server: [ServerErrorInterceptor(pipeline: requestPipeline(registry))]) {
            _ in
            throw DomainError(domain: "shop", code: "RATE_LIMITED", message: "user=42 over quota")
        } _: { client in
            try await rpcError { try await client.get("x", metadata: ["accept-language": "tr-TR, en;q=0.5"]) }
        }
        #expect(error.code == .resourceExhausted)
        #expect(error.message == "Çok fazla istek. Daha sonra yeniden deneyin.")
        let status = try #require(try error.unpackGoogleRPCStatus())
        #expect(status.code == .resourceExhausted)
        let info = try #require(status.details.lazy.compactMap(\.errorInfo).first)
        #expect(info.reason == "RATE_LIMITED")
        #expect(info.domain == "shop")
        #expect(info.metadata["status"] == "429")
        // The policy's first wait: the descriptor's, since the error carried none of its own.
        #expect(status.details.lazy.compactMap(\.retryInfo).first?.delay == .seconds(30))
        let localized = try #require(status.details.lazy.compactMap(\.localizedMessage).first)
        #expect(localized.locale == "tr")
        #expect(localized.message == "Çok fazla istek. Daha sonra yeniden deneyin.")
        #expect(!"\(error)".contains("user=42"))
    }

    @Test("a call runs under a SERVER span of the caller's trace with an instrument, in the current context without")
    func traceContextFollowsTheInstrument() async throws {
        let method = MethodDescriptor(fullyQualifiedService: "axiom.test.Echo", method: "Get")
        var metadata = Metadata()
        metadata.addString("4bf92f3577b34da6a3ce929d0e0e4736", forKey: InMemoryTracer.traceIDKey)
        metadata.addString("00f067aa0ba902b7", forKey: InMemoryTracer.spanIDKey)
        typealias Interceptor = ServerErrorInterceptor<FollowDescriptor>
        // No instrument: nothing to extract the caller's trace with, and no span to start that would record nothing.
        let untraced = withTracer(NoOpTracer()) {
            Interceptor.traceContext(metadata, method: method, named: method.fullyQualifiedMethod)
        }
        #expect(untraced.context == nil)
        #expect(untraced.span == nil)
        #expect(!untraced.spanIsOutside)
        // An instrument: a SERVER span of the method, child of the caller's span, recording the RPC's attributes.
        let tracer = InMemoryTracer()
        let traced = withTracer(tracer) {
            Interceptor.traceContext(metadata, method: method, named: method.fullyQualifiedMethod)
        }
        let span = try #require(traced.span as? InMemorySpan)
        #expect(span.operationName == "axiom.test.Echo/Get")
        #expect(span.kind == .server)
        #expect(span.spanContext.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(span.spanContext.parentSpanID == "00f067aa0ba902b7")
        #expect(span.attributes.get("rpc.method") == .string("Get"))
        #expect(traced.context?.inMemorySpanContext?.spanID == span.spanContext.spanID)
        #expect(!traced.spanIsOutside)
        span.end()
        // A span already active (a tracing interceptor outside this one started it): it stays, and is looked up.
        let inside = withTracer(tracer) {
            withSpan("outside", ofKind: .server) { _ in
                Interceptor.traceContext(metadata, method: method, named: method.fullyQualifiedMethod)
            }
        }
        #expect(inside.context == nil)
        #expect(inside.span == nil)
        #expect(inside.spanIsOutside)
    }

    @Test("the error's own Retry-After is the RetryInfo, capped by the policy")
    func ownWait() async throws {
        let registry = try shopRegistry()
        let error = try await withEchoServer(server: [ServerErrorInterceptor(pipeline: requestPipeline(registry))]) {
            _ in
            throw DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds(7))
        } _: { client in
            try await rpcError { try await client.get("x") }
        }
        let status = try #require(try error.unpackGoogleRPCStatus())
        #expect(status.details.lazy.compactMap(\.retryInfo).first?.delay == .seconds(7))
        #expect(status.details.lazy.compactMap(\.localizedMessage).first?.locale == "en")
    }

    @Test("an unregistered error is internal, axiom/unknownError, with the generic text, never its description")
    func unregistered() async throws {
        let registry = try shopRegistry()
        let error = try await withEchoServer(server: [ServerErrorInterceptor(pipeline: requestPipeline(registry))]) {
            _ in
            throw DatabaseDown()
        } _: { client in
            try await rpcError { try await client.get("x") }
        }
        #expect(error.code == .internalError)
        #expect(error.message == "Something went wrong. Please try again.")
        #expect(!"\(error)".contains("hunter2"))
        let status = try #require(try error.unpackGoogleRPCStatus())
        let info = try #require(status.details.lazy.compactMap(\.errorInfo).first)
        #expect(info.domain == "axiom")
        #expect(info.reason == "UNKNOWN_ERROR")
        #expect(info.metadata[GRPCStatusReader.codeKey] == "unknownError")
        #expect(status.details.lazy.compactMap(\.retryInfo).first == nil)
        let serialized: [UInt8] = try status.serializedBytes()
        #expect(!String(decoding: serialized, as: UTF8.self).contains("hunter2"))
    }

    @Test("a registered 5xx says only the generic text, in the caller's language")
    func registeredServerFailure() async throws {
        let registry = try shopRegistry()
        let error = try await withEchoServer(server: [ServerErrorInterceptor(pipeline: requestPipeline(registry))]) {
            _ in
            throw DomainError(domain: "shop", code: "LEDGER_DOWN")
        } _: { client in
            try await rpcError { try await client.get("x", metadata: ["accept-language": "tr"]) }
        }
        #expect(error.code == .internalError)
        #expect(!error.message.contains(ledgerHost))
        let status = try #require(try error.unpackGoogleRPCStatus())
        #expect(status.details.lazy.compactMap(\.errorInfo).first?.reason == "LEDGER_DOWN")
        #expect(status.details.lazy.compactMap(\.localizedMessage).first?.locale == "tr")
    }

    @Test(
        "a handler's own RPCError keeps its code, is answered with its status's texts and decided as a client error",
        arguments: [
            (RPCError.Code.alreadyExists, 409, "The request conflicts with the current state."),
            (.resourceExhausted, 429, "Too many requests. Try again later."),
            (.notFound, 404, "Nothing was found at this address."),
        ])
    func ownRPCError(code: RPCError.Code, status: Int, text: String) async throws {
        let (error, recorder) = try await answer(RPCError(code: code, message: "order 42: internal detail"))
        #expect(error.code == code)
        #expect(error.message == text)
        let details = try #require(try error.unpackGoogleRPCStatus()).details
        let info = try #require(details.lazy.compactMap(\.errorInfo).first)
        #expect(info.domain == "axiom.http")
        #expect(info.reason == "CODE_\(status)")  // AIP-193: a reason starts with a letter
        #expect(info.metadata["status"] == String(status))
        #expect(details.lazy.compactMap(\.localizedMessage).first?.message == text)
        // Decided as the status's code: a client error, handled at warning, not an unknown error at error level.
        #expect(recorder.records.map(\.event.code) == [HTTPErrorDomain.code(status: status)])
        #expect(recorder.records.map(\.event.descriptor.severity) == [.warning])
    }

    @Test("a handler's own RPCError of a server failure stays a failure: internalError is answered generically")
    func ownServerFailure() async throws {
        let (error, recorder) = try await answer(
            RPCError(code: .internalError, message: "connection to 10.0.0.7 refused"))
        #expect(error.code == .internalError)
        #expect(!error.message.contains("10.0.0.7"))
        #expect(recorder.records.map(\.event.descriptor.severity) == [.error])
    }

    /// The answer to a call whose handler throws `thrown`, through a pipeline whose events `recorder` keeps.
    func answer(_ thrown: RPCError) async throws -> (RPCError, RecordingObserver) {
        let recorder = RecordingObserver()
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil,
            configuration: PipelineConfiguration(registry: try shopRegistry(), observers: [recorder])
        ) { FollowDescriptor() }
        let error = try await withEchoServer(server: [ServerErrorInterceptor(pipeline: pipeline)]) { _ in
            throw thrown
        } _: { client in
            try await rpcError { try await client.get("x") }
        }
        return (error, recorder)
    }

    @Test("an error after a streaming response started is answered the same way")
    func afterTheFirstMessage() async throws {
        let registry = try shopRegistry()
        let received = Received()
        let error = try await withEchoServer(server: [ServerErrorInterceptor(pipeline: requestPipeline(registry))]) {
            _ in
            throw DomainError(domain: "shop", code: "INVALID_QUANTITY")
        } _: { client in
            try await rpcError { try await client.watch("x") { received.append($0) } }
        }
        #expect(received.values == ["first"])
        #expect(error.code == .invalidArgument)
        #expect(
            try error.unpackGoogleRPCStatus()?.details.lazy.compactMap(\.errorInfo).first?.reason == "INVALID_QUANTITY")
    }

    @Test("a recovery's output message is the answer")
    func recovered() async throws {
        let registry = try shopRegistry()
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil, configuration: PipelineConfiguration(registry: registry)
        ) {
            Recover(
                .code(ErrorCode("shop", "LEDGER_DOWN")),
                .fallback(Google_Protobuf_StringValue.with { $0.value = "cached" }))
            FollowDescriptor()
        }
        let reply = try await withEchoServer(server: [ServerErrorInterceptor(pipeline: pipeline)]) { _ in
            throw DomainError(domain: "shop", code: "LEDGER_DOWN")
        } _: { client in
            try await client.get("x")
        }
        #expect(reply == "cached")
    }

    /// The HTTP status each category's errors are answered with, and its gRPC code.
    static let byCategory: [(ErrorCategory, RPCError.Code)] = [
        (.validation, .invalidArgument), (.auth, .unauthenticated), (.credit, .failedPrecondition),
        (.state, .aborted), (.capability, .unavailable), (.network, .unavailable), (.api, .unavailable),
        (.cancellation, .unavailable), (.storage, .internalError), (.configuration, .internalError),
        (.general, .internalError),
    ]

    @Test(
        "an answer's details, kept with its texts, read back as the details serialized whole, for every code and trace",
        arguments: [nil, "", "4bf92f3577b34da6a3ce929d0e0e4736", String(repeating: "7", count: 200)])
    func keptDetails(traceId: String?) throws {
        let registry = try shopRegistry()
        let responder = ProblemResponder(registry: registry)
        let answered: [(any Error, String?)] = [
            (DomainError(domain: "shop", code: "RATE_LIMITED"), "tr-TR, en;q=0.5"),
            (DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds(7)), nil),
            (DatabaseDown(), "en"),
        ]
        for (error, language) in answered {
            let (identity, descriptor) = registry.resolve(error)
            let answer = responder.parts(
                identity: identity, descriptor: descriptor, acceptLanguage: language, instance: "/shop.Orders/Get",
                traceId: traceId, ownStatus: nil)
            for code in [RPCError.Code.resourceExhausted, .internalError, .unknown, .unauthenticated] {
                let whole = GoogleRPCStatus(
                    code: code, message: answer.problem.detail, details: answer.statusDetails(traceId: traceId))
                // The first answer makes the template, the second reads it back.
                for _ in 0..<2 {
                    let bytes = answer.statusBytes(code: code, traceId: traceId)
                    #expect(try GoogleRPCStatus(serializedBytes: bytes) == whole)
                }
            }
        }
    }

    @Test("a details template writes a status as grpc-swift-protobuf does, with lengths of one byte and of more")
    func detailsTemplate() throws {
        func details(message: String, traceId: String?) -> [ErrorDetails] {
            var metadata = ["status": "429", GRPCStatusReader.codeKey: "RATE_LIMITED"]
            if let traceId { metadata[GRPCStatusReader.traceIdKey] = traceId }
            return [
                .errorInfo(reason: "RATE_LIMITED", domain: "shop", metadata: metadata),
                .retryInfo(delay: .seconds(30)), .localizedMessage(locale: "en", message: message),
            ]
        }
        for message in ["", "Too many requests.", String(repeating: "ü", count: 100)] {
            let template = try #require(
                StatusDetailsTemplate(message: message, details: details(message: message, traceId: nil)))
            for traceId in [nil, "abc", String(repeating: "f", count: 300)] {
                let bytes = template.bytes(code: .resourceExhausted, traceId: traceId)
                let whole = GoogleRPCStatus(
                    code: .resourceExhausted, message: message, details: details(message: message, traceId: traceId))
                #expect(try GoogleRPCStatus(serializedBytes: bytes) == whole)
                #expect(bytes.count == (try whole.serializedBytes() as [UInt8]).count)
            }
        }
        // Details that do not start with an ErrorInfo have no template: they are serialized whole.
        #expect(StatusDetailsTemplate(message: "m", details: [.retryInfo(delay: .seconds(1))]) == nil)
        #expect(StatusDetailsTemplate(message: "m", details: []) == nil)
    }

    @Test("each category's status gives its code", arguments: byCategory)
    func category(_ category: ErrorCategory, _ code: RPCError.Code) async throws {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.table", domains: ["table"],
                descriptors: [ErrorDescriptor(code: ErrorCode("table", "E"), category: category)]))
        let error = try await answer(DomainError(domain: "table", code: "E"), registry: registry)
        #expect(error.code == code)
    }

    static let byStatus: [(Int, RPCError.Code)] = [
        (400, .invalidArgument), (401, .unauthenticated), (403, .permissionDenied), (404, .notFound),
        (405, .unimplemented), (408, .deadlineExceeded), (409, .aborted), (410, .notFound),
        (412, .failedPrecondition), (413, .invalidArgument), (416, .outOfRange), (422, .invalidArgument),
        (423, .failedPrecondition), (429, .resourceExhausted), (499, .cancelled), (500, .internalError),
        (501, .unimplemented), (502, .unavailable), (503, .unavailable), (504, .deadlineExceeded),
        (507, .internalError),
    ]

    @Test("each HTTP status gives the code of the table", arguments: byStatus)
    func status(_ status: Int, _ code: RPCError.Code) async throws {
        #expect(GRPCStatusTable.code(forHTTPStatus: status) == code)
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.table", domains: ["table"],
                descriptors: [ErrorDescriptor(code: ErrorCode("table", "E"), category: .general, httpStatus: status)]
            ))
        let error = try await answer(DomainError(domain: "table", code: "E"), registry: registry)
        #expect(error.code == code)
        let info = try #require(try error.unpackGoogleRPCStatus()?.details.lazy.compactMap(\.errorInfo).first)
        #expect(info.metadata["status"] == String(status))
    }

    /// The `RPCError` the interceptor answers `error` with, without a server.
    func answer(_ error: any Error, registry: ErrorRegistry) async throws -> RPCError {
        let interceptor = ServerErrorInterceptor(pipeline: requestPipeline(registry))
        let request = StreamingServerRequest<String>(single: ServerRequest(metadata: [:], message: "x"))
        let context = ServerContext(
            descriptor: EchoService.get, remotePeer: "in-process", localPeer: "in-process",
            cancellation: ServerContext.RPCCancellationHandle())
        return try await rpcError {
            try await interceptor.intercept(request: request, context: context) {
                (_, _) async throws -> StreamingServerResponse<String> in throw error
            }
        }
    }
}

/// Messages a streaming call received.
final class Received: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ value: String) { storage.withLock { $0.append(value) } }
    var values: [String] { storage.withLock { $0 } }
}
#endif
