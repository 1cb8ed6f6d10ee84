import AxiomCatalog

/// An error that knows its identity. Conform your error types to it to opt in to the registry.
///
/// The registry reads `errorCode` through a per-type cache, so conformance costs one dictionary lookup
/// per error, not a protocol cast.
///
/// `errorCode` must depend on the value alone (as a computed property over the cases of an enum does): for a small
/// plain value (at most 8 bytes and no references, such as an enum without payloads) the registry remembers which
/// descriptor each value resolved to, and does not ask again.
public protocol IdentifiableError: Error {
    /// The error's identity. A function of the value alone.
    var errorCode: ErrorCode { get }
    /// How long the remote side asked us to wait before retrying, if it said so.
    var retryAfter: Duration? { get }
}

extension IdentifiableError {
    /// No `Retry-After` by default.
    public var retryAfter: Duration? { nil }
}

/// What the registry extracts from an error value: its identity and a `Retry-After`, if any.
public struct ErrorIdentity: Sendable, Hashable {
    /// The identity.
    public var code: ErrorCode
    /// A `Retry-After` carried by the error.
    public var retryAfter: Duration?

    /// Creates an identity.
    public init(code: ErrorCode, retryAfter: Duration? = nil) {
        self.code = code
        self.retryAfter = retryAfter
    }
}
