/// How to make a failed operation succeed.
///
/// The two larger cases are `indirect`: their payloads (a closure, an existential value) live in a shared box, so
/// a recovery is 17 bytes and an ``ErrorDecision`` comes back from every handler and from the pipeline in
/// registers, not through memory. Handlers that always recover the same way make their recovery once and return
/// it: copies share the box, and deciding allocates nothing.
public enum Recovery: Sendable {
    /// Run the operation again after a wait.
    case retry(after: Duration)
    /// Run `prepare` (refresh a token, reconnect), then the operation again after a wait.
    indirect case prepareThenRetry(after: Duration, prepare: @Sendable () async throws -> Void)
    /// Use this value as the operation's result. It must be of the operation's result type.
    indirect case fallback(any Sendable)
}
