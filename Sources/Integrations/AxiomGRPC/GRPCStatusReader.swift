#if GRPC
import Axiom
import AxiomHTTP
import GRPCCore
import GRPCProtobuf

/// Reads a peer's error back from a gRPC status and its `google.rpc.Status` details (AIP-193): the counterpart of
/// ``ServerErrorInterceptor``, as `ProblemReader` is the counterpart of `ProblemResponder`, and it gives the same
/// `PeerProblem`, so a caller handles a peer's error one way whatever carried it.
///
/// ```
///   grpc-status-details-bin ≤ 64 KiB, a google.rpc.Status ──▶ PeerProblem
///        ErrorInfo domain + metadata code ──▶ the error's identity, when the code's reason is the reason
///        ErrorInfo domain + reason ──▶ otherwise (no ErrorInfo: axiom.http/<status>)
///        ErrorInfo metadata traceId, status ──▶ traceId, status (else the code's status, the guide's table)
///        RetryInfo retry_delay ──▶ retryAfter (at most a day; a negative one is dropped, its reason kept)
///        LocalizedMessage message ──▶ detail (else the status message)
///        the gRPC code ──▶ metadata `grpcCode`
///   no details ──▶ nil: the RPCError is the transport's or a peer's that does not speak AIP-193
///   anything else ──▶ UnreadableAnswer (axiom.http.peer/unreadableProblem)
/// ```
///
/// Detail types it does not read (`DebugInfo`, `Help`, a type of the peer's own) are passed over: AIP-193 lets a
/// service add them, and none of them changes the error's identity or fate. Anything a peer sends is answered with a
/// `PeerProblem`, nil, or an `UnreadableAnswer`, never a trap, in memory bounded by the largest details it reads
/// (64 KiB).
/// The codes a peer names are looked up in the registry like every other code, so the registry's bounds for codes
/// it does not know hold however many distinct codes peers send.
public struct GRPCStatusReader: Sendable {
    /// The largest serialized details read: 64 KiB, as `ProblemReader/maximumBodySize`.
    package static let maximumDetailsSize = ProblemReader.maximumBodySize
    /// The key gRPC carries serialized `google.rpc.Status` details under, in the trailing metadata.
    package static let detailsKey = "grpc-status-details-bin"
    /// The error metadata key of the gRPC code's name (`resourceExhausted`).
    package static let grpcCodeKey = "grpcCode"
    /// The `ErrorInfo` metadata key of the code as its catalog writes it (`outOfStock`), beside the reason in
    /// UPPER_SNAKE_CASE (`OUT_OF_STOCK`) that AIP-193 asks for.
    package static let codeKey = "code"
    /// The `ErrorInfo` metadata key of the trace id of the call the error ended.
    package static let traceIdKey = "traceId"

    /// The `ErrorInfo` reason of `code`: UPPER_SNAKE_CASE, as AIP-193 asks, matching `[A-Z][A-Z0-9_]+[A-Z0-9]`.
    ///
    /// Words are split where a lowercase letter (or the digits after one) meets an uppercase letter, and before the
    /// last capital of a run followed by a lowercase letter (`HTTPError` is `HTTP_ERROR`); every other character but
    /// an ASCII letter or digit is a separator. A reason, and so a code already in UPPER_SNAKE_CASE, is its own
    /// reason. A code that would not start with a letter or would have fewer than three characters gets the prefix
    /// `CODE_` (`404` is `CODE_404`). The result is at most 63 characters; the metadata's ``codeKey`` keeps the code
    /// whole.
    package static func reason(for code: String) -> String {
        let bytes = Array(code.utf8)
        func isUpper(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
        func isLower(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        var reason: [UInt8] = []
        var separate = false
        for (index, byte) in bytes.enumerated() {
            guard isUpper(byte) || isLower(byte) || isDigit(byte) else {
                separate = true
                continue
            }
            if isUpper(byte), index > 0 {
                // Before the digits that end a lowercase word (`v2Token`), not those of an uppercase one (`A2B`),
                // so that a reason is its own reason.
                var start = index - 1
                while start > 0, isDigit(bytes[start]) { start -= 1 }
                let previous = bytes[index - 1]
                let endsARun = isUpper(previous) && index + 1 < bytes.count && isLower(bytes[index + 1])
                if isLower(previous) || (isDigit(previous) && isLower(bytes[start])) || endsARun { separate = true }
            }
            if separate, !reason.isEmpty { reason.append(UInt8(ascii: "_")) }
            separate = false
            reason.append(isLower(byte) ? byte - 32 : byte)
        }
        if reason.count < 3 || !isUpper(reason[0]) {
            reason = Array("CODE".utf8) + (reason.isEmpty ? [] : [UInt8(ascii: "_")] + reason)
        }
        if reason.count > 63 { reason.removeLast(reason.count - 63) }
        while reason.last == UInt8(ascii: "_") { reason.removeLast() }
        return String(decoding: reason, as: UTF8.self)
    }

    /// The registry the peer's codes are looked up in.
    package let registry: ErrorRegistry

    /// A reader over `registry`; registers `axiom.http.peer` and `axiom.http` in it, as `ProblemReader` does.
    public init(registry: ErrorRegistry) {
        self.registry = ProblemReader(registry: registry).registry
    }

    /// The peer's error in `error`, nil when it carries no details.
    ///
    /// - Throws: `UnreadableAnswer` (with the status of the error's code) when the details are larger than
    ///   64 KiB, are not a `google.rpc.Status`, or name a domain and reason that are not a code.
    public func read(_ error: RPCError) throws(UnreadableAnswer) -> PeerProblem? {
        guard let bytes = error.metadata[binaryValues: Self.detailsKey].first(where: { _ in true }) else {
            return nil
        }
        return try read(details: bytes, code: error.code, message: error.message)
    }

    /// The peer's error in serialized `google.rpc.Status` details that came with `code` and `message`.
    package func read(
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
        let traceId = info?.metadata[Self.traceIdKey].flatMap(ProblemReader.traceId)
        if let traceId { metadata["traceId"] = traceId }

        let identity: ErrorCode
        if let info {
            // An Axiom peer's exact code; a reason of another service (`STOCKOUT`) is its code as it stands.
            let written = info.metadata[Self.codeKey].flatMap { Self.reason(for: $0) == info.reason ? $0 : nil }
            let code = written ?? info.reason
            guard !info.domain.contains("/"), let parsed = ProblemReader.code("\(info.domain)/\(code)") else {
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
