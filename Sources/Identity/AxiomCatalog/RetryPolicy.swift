/// How an error may be retried: how often, and how long to wait between attempts.
public struct RetryPolicy: Sendable, Hashable, Codable {
    /// How the delay grows from one retry to the next.
    public enum Backoff: String, Sendable, Hashable, Codable, CaseIterable {
        /// Always `delay`.
        case constant
        /// `delay × n` for the n-th retry.
        case linear
        /// `delay × 2^(n-1)` for the n-th retry, without jitter (with it, about half that from the third retry
        /// on: see ``RetryPolicy/jitter``).
        case exponential
    }

    /// Total calls, the first one included: `3` means one call and at most two retries; `1` means "never
    /// retried". Coming from Polly, whose `MaxRetryAttempts` counts retries only: `maxAttempts` is
    /// `MaxRetryAttempts + 1`.
    ///
    /// The count belongs to the operation, not to the place that retries: a `RetryStage` in the chain and a
    /// `FollowDescriptor` in the layer's pipeline applying the same policy make `maxAttempts` calls in all.
    public var maxAttempts: Int
    /// Growth of the delay.
    public var backoff: Backoff
    /// The base delay: the wait before the first retry.
    public var delay: Duration
    /// No wait is longer than this: it caps the backoff, the jitter and a `Retry-After` the error carries.
    public var maxDelay: Duration
    /// Whether a random jitter is applied to each wait: ±25 % for constant and linear backoff; for exponential,
    /// Polly's decorrelated jitter, whose waits from the third retry on have a median of about
    /// `delay × 2^(n-2)`, half the unjittered wait, and stay under 1.09 × `delay × 2^(n-1)` (see
    /// `wait(forRetry:retryAfter:state:random:)` in AxiomCore for the formula and the table of delays).
    public var jitter: Bool
    /// Whether a `Retry-After` carried by the error replaces the computed delay. It is still capped at
    /// ``maxDelay``; a negative one is ignored.
    public var honorsRetryAfter: Bool

    /// Creates a policy. `maxAttempts` counts every call, the first included (Polly's `MaxRetryAttempts` + 1).
    public init(
        maxAttempts: Int,
        backoff: Backoff = .exponential,
        delay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(300),
        jitter: Bool = false,
        honorsRetryAfter: Bool = true
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
        self.delay = delay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.honorsRetryAfter = honorsRetryAfter
    }

    /// The wait before retry number `retry` (1 for the first retry), without jitter, capped at `maxDelay`.
    package func delay(forRetry retry: Int) -> Duration {
        let n = max(1, retry)
        let factor: Int
        switch backoff {
        case .constant: factor = 1
        case .linear: factor = n
        // Saturate instead of overflowing for absurd attempt counts.
        case .exponential: factor = n > 62 ? Int.max : 1 << (n - 1)
        }
        // delay × factor beyond maxDelay is maxDelay: decided before multiplying, since a long delay (one a
        // plugin declares) times a large factor overflows Duration's 128 bits, which traps.
        if factor == Int.max || (delay > .zero && delay > maxDelay / factor) { return maxDelay }
        return min(delay * factor, maxDelay)
    }

    /// Whether another attempt may follow attempt number `attempt` (1-based).
    package func allowsRetry(after attempt: Int) -> Bool { attempt < maxAttempts }
}
