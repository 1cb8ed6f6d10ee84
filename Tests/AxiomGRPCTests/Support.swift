#if GRPC
import Axiom
import AxiomGRPC
import AxiomHTTP
import AxiomShopFixture
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import InMemoryTracing
import SwiftProtobuf
import Testing
import Tracing

/// A terminal pipeline that decides every error by its descriptor, over `registry`.
func requestPipeline(_ registry: ErrorRegistry) -> ErrorPipeline<FollowDescriptor> {
    ErrorPipeline(layer: Layer("request"), escalatesTo: nil, configuration: PipelineConfiguration(registry: registry)) {
        FollowDescriptor()
    }
}

/// A tiny service written with grpc-swift 2's hand-written API (no generated code, so no protoc plugin to build):
/// `axiom.test.Echo/Get`, unary, and `axiom.test.Echo/Watch`, server streaming, whose request and response are
/// `google.protobuf.StringValue` in protobuf's wire format through GRPCProtobuf's serializers. The handler is the
/// test's: it answers the request's value or throws.
struct EchoService: RegistrableRPCService {
    static let get = MethodDescriptor(fullyQualifiedService: "axiom.test.Echo", method: "Get")
    static let watch = MethodDescriptor(fullyQualifiedService: "axiom.test.Echo", method: "Watch")
    static let hang = MethodDescriptor(fullyQualifiedService: "axiom.test.Echo", method: "Hang")
    static let drip = MethodDescriptor(fullyQualifiedService: "axiom.test.Echo", method: "Drip")

    let handler: @Sendable (String) async throws -> String

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        let handler = self.handler
        router.registerHandler(
            forMethod: Self.get, deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(),
            serializer: ProtobufSerializer<Google_Protobuf_StringValue>()
        ) { request, _ in
            let single = try await ServerRequest(stream: request)
            let reply = try await handler(single.message.value)
            return StreamingServerResponse(single: ServerResponse(message: .with { $0.value = reply }))
        }
        // One message, then whatever the handler does: the error after the response started.
        router.registerHandler(
            forMethod: Self.watch, deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(),
            serializer: ProtobufSerializer<Google_Protobuf_StringValue>()
        ) { request, _ in
            let single = try await ServerRequest(stream: request)
            return StreamingServerResponse { writer in
                try await writer.write(.with { $0.value = "first" })
                let next = try await handler(single.message.value)
                try await writer.write(.with { $0.value = next })
                return [:]
            }
        }
        // One message, the handler called, then, once the caller has cancelled the call, messages that nobody reads
        // until a write fails (the transport learns of the cancellation in its own time; at most 100,000).
        router.registerHandler(
            forMethod: Self.drip, deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(),
            serializer: ProtobufSerializer<Google_Protobuf_StringValue>()
        ) { request, context in
            let single = try await ServerRequest(stream: request)
            return StreamingServerResponse { writer in
                try await writer.write(.with { $0.value = "first" })
                let next = try await handler(single.message.value)
                try? await context.cancellation.cancelled
                for _ in 0..<100_000 { try await writer.write(.with { $0.value = next }) }
                return [:]
            }
        }
        // Calls the handler, waits until the caller cancels the call, then answers: too late for anyone to read.
        router.registerHandler(
            forMethod: Self.hang, deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(),
            serializer: ProtobufSerializer<Google_Protobuf_StringValue>()
        ) { request, context in
            let single = try await ServerRequest(stream: request)
            let reply = try await handler(single.message.value)
            try? await context.cancellation.cancelled
            return StreamingServerResponse(single: ServerResponse(message: .with { $0.value = reply }))
        }
    }
}

/// Every call's deadline: the calls are on loopback, so only a hang reaches it.
let callOptions: CallOptions = {
    var options = CallOptions.defaults
    options.timeout = .seconds(60)
    return options
}()

/// Runs `body` with a client of a real gRPC server over HTTP/2 on loopback (port 0, plaintext) that serves
/// ``EchoService`` with `handler` behind `server`; both are stopped when `body` returns.
func withEchoServer<Result: Sendable>(
    server interceptors: [any ServerInterceptor], client clientInterceptors: [any ClientInterceptor] = [],
    handler: @escaping @Sendable (String) async throws -> String,
    _ body: @Sendable (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> Result
) async throws -> Result {
    let server = GRPCServer(
        transport: .http2NIOPosix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
        services: [EchoService(handler: handler)], interceptors: interceptors)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.serve() }
        defer { server.beginGracefulShutdown() }
        let port = try #require(try await server.transport.listeningAddress.ipv4?.port)
        let transport = try HTTP2ClientTransport.Posix(
            target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
        return try await withGRPCClient(transport: transport, interceptors: clientInterceptors) { client in
            try await body(client)
        }
    }
}

extension GRPCClient {
    /// Calls `Echo/Get` with `value`.
    func get(_ value: String, metadata: Metadata = [:]) async throws -> String {
        try await unary(
            request: ClientRequest(message: Google_Protobuf_StringValue.with { $0.value = value }, metadata: metadata),
            descriptor: EchoService.get, serializer: ProtobufSerializer<Google_Protobuf_StringValue>(),
            deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(), options: callOptions
        ) { try $0.message.value }
    }

    /// Calls `Echo/Hang` with `value`.
    func hang(_ value: String) async throws -> String {
        try await unary(
            request: ClientRequest(message: Google_Protobuf_StringValue.with { $0.value = value }),
            descriptor: EchoService.hang, serializer: ProtobufSerializer<Google_Protobuf_StringValue>(),
            deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(), options: callOptions
        ) { try $0.message.value }
    }

    /// Calls `Echo/Drip` with `value`, handing each message to `received`.
    func drip(_ value: String, received: @escaping @Sendable (String) -> Void) async throws {
        try await serverStreaming(
            request: ClientRequest(message: Google_Protobuf_StringValue.with { $0.value = value }),
            descriptor: EchoService.drip, serializer: ProtobufSerializer<Google_Protobuf_StringValue>(),
            deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(), options: callOptions
        ) { response in
            for try await message in response.messages { received(message.value) }
        }
    }

    /// Calls `Echo/Watch` with `value`; the messages it got before the error.
    func watch(_ value: String, received: @escaping @Sendable (String) -> Void) async throws {
        try await serverStreaming(
            request: ClientRequest(message: Google_Protobuf_StringValue.with { $0.value = value }),
            descriptor: EchoService.watch, serializer: ProtobufSerializer<Google_Protobuf_StringValue>(),
            deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(), options: callOptions
        ) { response in
            for try await message in response.messages { received(message.value) }
        }
    }
}

/// The error a call threw, as the `RPCError` grpc-swift throws.
func rpcError(_ body: () async throws -> some Any) async throws -> RPCError {
    do {
        _ = try await body()
    } catch let error as RPCError {
        return error
    }
    throw CallSucceeded()
}

/// A call that should have failed succeeded.
struct CallSucceeded: Error {}
#endif
