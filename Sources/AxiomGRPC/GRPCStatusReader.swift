#if GRPC
import Axiom
import AxiomHTTP
import GRPCCore
import GRPCProtobuf

/// Reads a peer's error back from a gRPC status and its `google.rpc.Status` details (AIP-193): the counterpart of
/// ``ServerErrorInterceptor``, as ``ProblemReader`` is the counterpart of ``ProblemResponder``, and it gives the same
/// ``PeerProblem``, so a caller handles a peer's error one way whatever carried it.
///
/// ```
///   grpc-status-details-bin ≤ 64 KiB, a google.rpc.Status ──▶ PeerProblem
///        ErrorInfo domain + reason ──▶ the error's identity (no ErrorInfo: axiom.http/<status>)
///        ErrorInfo metadata traceId, status ──▶ traceId, status (else the code's status, GRPCStatusTable)
///        RetryInfo retry_delay ──▶ retryAfter (at most a day; a negative one is dropped, its reason kept)
///        LocalizedMessage message ──▶ detail (else the status message)
///        the gRPC code ──▶ metadata `grpcCode`
///   no details ──▶ nil: the RPCError is the transport's or a peer's that does not speak AIP-193
///   anything else ──▶ UnreadableAnswer (axiom.http.peer/unreadableProblem)
/// ```
///
/// Detail types it does not read (`DebugInfo`, `Help`, a type of the peer's own) are passed over: AIP-193 lets a
/// service add them, and none of them changes the error's identity or fate. Anything a peer sends is answered with a
/// ``PeerProblem``, nil, or an ``UnreadableAnswer``, never a trap, in memory bounded by ``maximumDetailsSize``.
/// The codes a peer names are looked up in the registry like every other code, so the registry's bounds for codes
/// it does not know hold however many distinct codes peers send.
public struct GRPCStatusReader: Sendable {
    /// The largest serialized details read: 64 KiB, as ``ProblemReader/maximumBodySize``.
    public static let maximumDetailsSize = ProblemReader.maximumBodySize
    /// The key gRPC carries serialized `google.rpc.Status` details under, in the trailing metadata.
    public static let detailsKey = "grpc-status-details-bin"
    /// The error metadata key of the gRPC code's name (`resourceExhausted`).
    public static let grpcCodeKey = "grpcCode"

    /// The registry the peer's codes are looked up in.
    public let registry: ErrorRegistry

    /// A reader over `registry`; registers `axiom.http.peer` and `axiom.http` in it, as ``ProblemReader`` does.
    public init(registry: ErrorRegistry) {
        self.registry = ProblemReader(registry: registry).registry
    }

    /// The peer's error in `error`, nil when it carries no details.
    ///
    /// - Throws: ``UnreadableAnswer`` (with the status of the error's code) when the details are larger than
    ///   ``maximumDetailsSize``, are not a `google.rpc.Status`, or name a domain and reason that are not a code.
    public func read(_ error: RPCError) throws(UnreadableAnswer) -> PeerProblem? {
        guard let bytes = error.metadata[binaryValues: Self.detailsKey].first(where: { _ in true }) else {
            return nil
        }
        return try read(details: bytes, code: error.code, message: error.message)
    }

    /// The peer's error in serialized `google.rpc.Status` details that came with `code` and `message`.
    public func read(
        details bytes: [UInt8], code: RPCError.Code, message: String
    ) throws(UnreadableAnswer)
        -> PeerProblem
    {
        var status = GRPCStatusTable.httpStatus(for: code)
        let unreadable = { (reason: String) in UnreadableAnswer(.unreadableProblem, reason: reason, status: status) }
        guard bytes.count <= Self.maximumDetailsSize else { throw unreadable("status details larger than 64 KiB") }
        let details: [ErrorDetails]
        do {
            details = try GoogleRPCStatus(serializedBytes: bytes).details
        } catch {
            throw unreadable("status details are not a google.rpc.Status")
        }
        let info = details.lazy.compactMap(\.errorInfo).first
        let retry = details.lazy.compactMap(\.retryInfo).first
        let localized = details.lazy.compactMap(\.localizedMessage).first

        var metadata = [Self.grpcCodeKey: String(describing: code)]
        if let text = info?.metadata["status"], let own = Int(text), (400...599).contains(own) { status = own }
        metadata["status"] = String(status)
        let traceId = info?.metadata["traceId"].flatMap(ProblemReader.traceId)
        if let traceId { metadata["traceId"] = traceId }

        let identity: ErrorCode
        if let info {
            guard !info.domain.contains("/"), let parsed = ProblemReader.code("\(info.domain)/\(info.reason)") else {
                throw unreadable("`ErrorInfo` does not name a domain and a reason")
            }
            identity = parsed
        } else {
            identity = HTTPErrorDomain.code(status: status)
        }
        var retryAfter: Duration?
        if let delay = retry?.delay {
            if delay < .zero {
                metadata[DomainError.invalidRetryAfterKey] = "negative"
            } else {
                retryAfter = min(delay, DomainError.maximumRetryAfter)
            }
        }
        let detail = localized?.message ?? message
        let peer = DomainError(
            domain: identity.domain, code: identity.code, message: detail, metadata: metadata,
            retryAfter: retryAfter)
        return PeerProblem(
            error: peer, status: status, title: nil, detail: detail, retryAfter: retryAfter, traceId: traceId,
            descriptor: registry.descriptor(for: identity))
    }
}
#endif
