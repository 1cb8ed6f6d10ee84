#if GRPC
@_exported import GRPCCore

/// The gRPC status code of an answer, from the HTTP status `ProblemResponder` chose for the error (from its
/// descriptor's `httpStatus`, else its category's status), and back.
///
/// The table follows the HTTP mapping of `google.rpc.Code` (AIP-193), read from the status to the code:
///
/// | HTTP status | gRPC code | read back as | why |
/// |---|---|---|---|
/// | 400, 413, 415, 422 | `invalidArgument` | 400 | the request itself is wrong (gRPC's own "message too large" is `resourceExhausted`, but a request the service found too large is an argument it refuses) |
/// | 401 | `unauthenticated` | 401 | |
/// | 403 | `permissionDenied` | 403 | |
/// | 404, 410 | `notFound` | 404 | |
/// | 405, 501 | `unimplemented` | 501 | the method is not served |
/// | 408, 504 | `deadlineExceeded` | 504 | |
/// | 409 | `aborted` | 409 | `google.rpc.Code` maps `ABORTED` to 409: a conflict with the current state, which the caller may resolve by trying the whole sequence again; `failedPrecondition` says nothing changes until someone fixes the state |
/// | 412 | `failedPrecondition` | 412 | |
/// | 416 | `outOfRange` | 416 | |
/// | 429 | `resourceExhausted` | 429 | |
/// | 499 | `cancelled` | 499 | the client went away |
/// | any other 4xx | `failedPrecondition` | | the request is well formed, but cannot be served as things are (a 402, a 423) |
/// | 502, 503 | `unavailable` | 503 | the caller may try again later |
/// | 500, any other 5xx | `internalError` | 500 | |
/// | anything outside 400–599 | `unknown` | 500 | |
///
/// `alreadyExists` reads back as 409, `dataLoss` as 500. The status read back is that of a peer's answer that
/// names none of its own (``GRPCStatusReader``).
///
/// A SERVER span is failed (``isServerFailure(_:)``) for `unknown`, `deadlineExceeded`, `unimplemented`,
/// `internalError`, `unavailable` and `dataLoss`, as OpenTelemetry's gRPC conventions ask; the other codes are the
/// caller's failures and leave the status unset.
package enum GRPCStatusTable {
    /// The code of an answer with `status`.
    package static func code(forHTTPStatus status: Int) -> RPCError.Code {
        switch status {
        case 400, 413, 415, 422: .invalidArgument
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404, 410: .notFound
        case 405, 501: .unimplemented
        case 408, 504: .deadlineExceeded
        case 409: .aborted
        case 412: .failedPrecondition
        case 416: .outOfRange
        case 429: .resourceExhausted
        case 499: .cancelled
        case 402...499: .failedPrecondition
        case 502, 503: .unavailable
        case 500...599: .internalError
        default: .unknown
        }
    }

    /// The HTTP status a code stands for, when a peer's answer gives none.
    package static func httpStatus(for code: RPCError.Code) -> Int {
        switch code {
        case .cancelled: 499
        case .invalidArgument: 400
        case .deadlineExceeded: 504
        case .notFound: 404
        case .alreadyExists, .aborted: 409
        case .permissionDenied: 403
        case .resourceExhausted: 429
        case .failedPrecondition: 412
        case .outOfRange: 416
        case .unimplemented: 501
        case .unavailable: 503
        case .unauthenticated: 401
        default: 500
        }
    }

    /// Whether a SERVER span's status is error for an answer with `code`: the server failed, not the caller.
    package static func isServerFailure(_ code: RPCError.Code) -> Bool {
        switch code {
        case .unknown, .deadlineExceeded, .unimplemented, .internalError, .unavailable, .dataLoss: true
        default: false
        }
    }
}
#endif
