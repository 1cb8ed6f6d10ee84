#if GRPC
import Axiom
import AxiomHTTP
import AxiomTracing
import GRPCCore
import Tracing

/// Sends the caller's trace with every call, and reads a peer's error back from its status and
/// `google.rpc.Status` details, so that the caller decides and retries the peer's error by its identity.
///
/// ```swift
/// let client = GRPCClient(transport: transport, interceptors: [ClientErrorInterceptor(registry: registry)])
/// ```
///
/// - It injects the current `ServiceContext` into the request's metadata through the bootstrapped instrument
///   (W3C `traceparent` for OpenTelemetry's tracers), so the peer's answer names this trace.
/// - An `RPCError` that carries details (``ServerErrorInterceptor``'s, or any AIP-193 service's) is read by a
///   ``GRPCStatusReader``; the caller still gets an `RPCError` (grpc-swift's calls throw nothing else), with the
///   same code, message and metadata, and the peer's `DomainError` (`PeerProblem/error`) as its `cause`.
///   Details it cannot read give an `UnreadableAnswer` as the cause instead.
/// - The registry is taught the identity of `RPCError`: the peer's error inside it, with its wait (a `RetryStage`
///   over the call waits the peer's `RetryInfo`, capped by the code's policy), or, for an `RPCError` without one
///   (the transport's, or a peer's without details), `axiom.http/<status>` of its code's status
///   (the table of the guide "Across a gRPC call"), as `ProblemReader` reads an answer without a code.
/// - The span active around the call, when it is recording, gets the peer's code (`axiom.peer.code`) and
///   its trace id (`axiom.peer.trace_id`).
public struct ClientErrorInterceptor: ClientInterceptor {
    /// The reader of peers' details.
    public let reader: GRPCStatusReader

    /// An interceptor whose peers' codes are looked up in `registry`; teaches it the identity of `RPCError`.
    public init(registry: ErrorRegistry) {
        reader = GRPCStatusReader(registry: registry)
        registry.registerIdentity(of: RPCError.self, identity: Self.identity(of:))
    }

    /// The identity of an `RPCError`, as the type's discussion says.
    package static func identity(of error: RPCError) -> ErrorIdentity {
        if let peer = error.cause as? any IdentifiableError {
            return ErrorIdentity(code: peer.errorCode, retryAfter: peer.retryAfter)
        }
        return ErrorIdentity(code: HTTPErrorDomain.code(status: GRPCStatusTable.httpStatus(for: error.code)))
    }

    /// Sends the current trace with the call and reads the peer's error back from its failure, whether the call was
    /// refused or ended with a status after messages.
    public func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingClientRequest<Input>, context: ClientContext,
        next: (StreamingClientRequest<Input>, ClientContext) async throws -> StreamingClientResponse<Output>
    ) async throws -> StreamingClientResponse<Output> {
        var request = request
        if let current = ServiceContext.current {
            InstrumentationSystem.instrument.inject(current, into: &request.metadata, using: MetadataInjector())
        }
        var response = try await next(request, context)
        switch response.accepted {
        case .failure(let error):
            response.accepted = .failure(peerError(error))
        case .success(var contents):
            contents.bodyParts = RPCAsyncSequence(wrapping: PeerErrors(base: contents.bodyParts, interceptor: self))
            response.accepted = .success(contents)
        }
        return response
    }

    /// `error` with the peer's error it carries as its cause, when it carries details.
    func peerError(_ error: RPCError) -> RPCError {
        let cause: any Error
        do {
            guard let peer = try reader.read(error) else { return error }
            TracingInstrument.recordPeerError(code: peer.code, traceId: peer.traceId)
            cause = peer.error
        } catch {
            cause = error
        }
        return RPCError(code: error.code, message: error.message, metadata: error.metadata, cause: cause)
    }
}

/// A response's body parts, with an `RPCError` that ends them read back as the peer's (a status after messages).
struct PeerErrors<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {
    typealias Element = Base.Element
    typealias Failure = any Error
    let base: Base
    let interceptor: ClientErrorInterceptor

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let interceptor: ClientErrorInterceptor

        mutating func next() async throws -> Element? {
            do {
                return try await base.next()
            } catch let error as RPCError {
                throw interceptor.peerError(error)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), interceptor: interceptor)
    }
}
#endif
