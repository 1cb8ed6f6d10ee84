/// The identity of an error: a domain and a code within it.
///
/// Domains are short, lower-case and dotted (`axiom.client`, `nwc`, `telnyx`); codes are whatever the
/// domain uses (`RATE_LIMITED`, `invalidState`). A numeric alias (`-32003`) is declared on the descriptor
/// and resolves to the same identity.
public struct ErrorCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The domain that owns the code.
    public let domain: String
    /// The code within its domain.
    public let code: String

    /// Creates an identity from a domain and a code.
    @inlinable
    public init(_ domain: String, _ code: String) {
        self.domain = domain
        self.code = code
    }

    /// `domain/code`, the form used in logs and by the command-line tool.
    public var description: String { "\(domain)/\(code)" }
}
