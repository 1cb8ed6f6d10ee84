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
