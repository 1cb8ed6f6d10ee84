/// How to make a failed operation succeed.
public enum Recovery: Sendable {
    /// Run the operation again after a wait.
    case retry(after: Duration)
    /// Run `prepare` (refresh a token, reconnect), then the operation again after a wait.
    case prepareThenRetry(after: Duration, prepare: @Sendable () async throws -> Void)
    /// Use this value as the operation's result. It must be of the operation's result type.
    case fallback(any Sendable)
}
