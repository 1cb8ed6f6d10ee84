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

/// What kind of failure an error is. Drives the default presentation and the generic handlers.
public enum ErrorCategory: String, Sendable, Hashable, Codable, CaseIterable {
    /// The user's input is not acceptable.
    case validation
    /// Connectivity, timeouts, unreachable hosts.
    case network
    /// A remote service answered with an error.
    case api
    /// Not enough balance, credits or quota.
    case credit
    /// Authentication or authorization failed.
    case auth
    /// A capability the operation needs is unavailable.
    case capability
    /// Internal state is not what the operation expects.
    case state
    /// Reading or writing local storage failed.
    case storage
    /// The application is configured wrongly.
    case configuration
    /// The operation was cancelled; usually expected.
    case cancellation
    /// Anything else.
    case general
}

/// How serious an error is. Maps onto swift-log levels.
public enum ErrorSeverity: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case debug, info, notice, warning, error, critical

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .notice: 2
        case .warning: 3
        case .error: 4
        case .critical: 5
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}

/// The fate of an error: what the handler pipeline does with it.
public enum Disposition: String, Sendable, Hashable, Codable, CaseIterable {
    /// Expected: not shown, logged at debug, counted.
    case ignore
    /// Try to make the operation succeed: retry, refresh then retry, fall back to a value.
    case recover
    /// Not handleable here: pass it, maybe translated, to the next layer.
    case escalate
    /// The last line: log, count, capture the stack, present, and end. An inner layer passes such an error on,
    /// so it is handled by the terminal layer (the one with no layer to escalate to).
    case handle

    /// A disposition by name. `default`, the name version-1 plugins and older catalogs use for `handle`, is
    /// read as `handle`.
    public init?(rawValue: String) {
        switch rawValue {
        case "ignore": self = .ignore
        case "recover": self = .recover
        case "escalate": self = .escalate
        case "handle", "default": self = .handle
        default: return nil
        }
    }
}
