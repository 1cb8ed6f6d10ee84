// The server `Benchmarks/grpc-errors` loads with h2load: one unary method, `bench.Limited/Get`, answering
// `resourceExhausted` in one of four ways, so the framework's price is read beside grpc-swift's own error answer in
// the same run.
//
//     GRPCErrorServer own|own-message|adapter|code PORT
//
//   own      the handler throws grpc-swift's own `RPCError(code: .resourceExhausted, message: "")`, answered by
//            grpc-swift: the baseline
//   own-message  the same, with the message the adapter's answer carries
//   adapter  the same error (with the message), decided and answered by `ServerErrorInterceptor`
//   code     the handler throws a registered code (`bench/RATE_LIMITED`, 429, Retry-After 2 s), decided and answered
//            by the interceptor: `resourceExhausted` with ErrorInfo, RetryInfo and LocalizedMessage details
//
// The request and the response are `google.protobuf.StringValue`. Logging and the pipeline are `ErrorServerSupport`'s,
// as for the HTTP servers; metrics go to swift-metrics' no-op backend. Plaintext HTTP/2 on 127.0.0.1.
import Axiom

#if canImport(Glibc)
import Glibc
#endif

#if GRPC
import AxiomGRPC
import ErrorServerSupport
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SwiftProtobuf

let arguments = CommandLine.arguments
guard arguments.count == 3, ErrorServerSupport.modes.contains(arguments[1]),
    let port = Int(arguments[2])
else {
    writeAll(STDERR_FILENO, "usage: GRPCErrorServer own|own-message|adapter|code PORT\n")
    exit(2)
}
let mode = arguments[1]
ErrorServerSupport.bootstrapLogging()
let pipeline = try ErrorServerSupport.pipeline()

/// `bench.Limited/Get`: always fails, in the way the mode names.
struct LimitedService: RegistrableRPCService {
    static let get = MethodDescriptor(fullyQualifiedService: "bench.Limited", method: "Get")

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(
            forMethod: Self.get, deserializer: ProtobufDeserializer<Google_Protobuf_StringValue>(),
            serializer: ProtobufSerializer<Google_Protobuf_StringValue>()
        ) { request, _ -> StreamingServerResponse<Google_Protobuf_StringValue> in
            _ = try await ServerRequest(stream: request)
            switch mode {
            case "own": throw RPCError(code: .resourceExhausted, message: "")
            case "code": throw ErrorServerSupport.rateLimited
            default: throw RPCError(code: .resourceExhausted, message: ErrorServerSupport.message)
            }
        }
    }
}

let server = GRPCServer(
    transport: .http2NIOPosix(address: .ipv4(host: "127.0.0.1", port: port), transportSecurity: .plaintext),
    services: [LimitedService()],
    interceptors: mode.hasPrefix("own") ? [] : [ServerErrorInterceptor(pipeline: pipeline)])
try await withThrowingDiscardingTaskGroup { group in
    group.addTask { try await server.serve() }
    // Tells the script the server is up: a line on stdout, written at once.
    _ = try await server.transport.listeningAddress
    writeAll(STDOUT_FILENO, "listening \(port)\n")
}
#else
writeAll(STDERR_FILENO, "GRPCErrorServer needs the GRPC trait: --traits GRPC\n")
exit(2)
#endif
