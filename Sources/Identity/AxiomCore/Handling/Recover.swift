import AxiomCatalog

/// Makes an operation succeed after all: retry, prepare then retry, or a fallback value.
public struct Recover: ErrorHandler {
    /// How to recover from one event; nil when this strategy has nothing more to try.
    public struct Strategy: Sendable {
        let plan: @Sendable (ErrorEvent) throws -> Recovery?

        /// A custom strategy.
        public init(_ plan: @escaping @Sendable (ErrorEvent) throws -> Recovery?) { self.plan = plan }

        /// Retry while `policy` allows (its `maxAttempts` counts every call of the operation, the chain's
        /// retries included), waiting its backoff with its jitter, or the error's `Retry-After` if the policy
        /// honours it; every wait capped at its `maxDelay`. With a `budget`, each retry is taken from it, and a
        /// retry it refuses is not made: the error passes on.
        public static func retry(_ policy: RetryPolicy, budget: RetryBudget? = nil) -> Strategy {
            Strategy { event in Recover.plannedRetry(policy, event, budget: budget) }
        }

        /// Retry as the error's descriptor says; nothing when it is not retryable or its attempts (counted for
        /// the whole operation) are used up. With a `budget`, each retry is taken from it, and a retry it refuses
        /// is not made.
        public static func descriptorPolicy(budget: RetryBudget? = nil) -> Strategy {
            Strategy { event in Recover.plannedRetry(event.descriptor.retry, event, budget: budget) }
        }

        /// Run `prepare` (refresh a token, reconnect), then retry, at most `maxAttempts` attempts in all.
        public static func prepareThenRetry(
            maxAttempts: Int, after delay: Duration = .zero, _ prepare: @escaping @Sendable () async throws -> Void
        ) -> Strategy {
            // Made once: every decision shares its box (the case is indirect), so deciding allocates nothing.
            let recovery = Recovery.prepareThenRetry(after: delay, prepare: prepare)
            return Strategy { event in event.attempt < maxAttempts ? recovery : nil }
        }

        /// Use a fixed value as the result.
        public static func fallback(_ value: some Sendable) -> Strategy {
            // Made once, as above: the value is boxed when the strategy is made, not per decision.
            let recovery = Recovery.fallback(value)
            return Strategy { _ in recovery }
        }
    }

    /// What it takes.
    @usableFromInline package let match: ErrorMatch
    /// How it recovers.
    package let strategy: Strategy

    /// Recovers matching events with a strategy.
    public init(_ match: ErrorMatch, _ strategy: Strategy) {
        self.match = match
        self.strategy = strategy
    }

    @inlinable
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision {
        guard match.matches(event) else { return .pass }
        return try plan(event)
    }

    @usableFromInline
    func plan(_ event: ErrorEvent) throws -> ErrorDecision {
        guard let recovery = try strategy.plan(event) else { return .pass }
        return .recover(recovery)
    }

    @_documentation(visibility: internal)
    public func bound(to registry: ErrorRegistry) -> Recover { Recover(match.bound(to: registry), strategy) }

    /// The wait before retrying `event`: the retry engine's, with the error's `Retry-After` (capped at the
    /// policy's `maxDelay`) and the policy's jitter.
    static func wait(_ policy: RetryPolicy, _ event: ErrorEvent) -> Duration {
        policy.wait(forRetry: event.attempt, retryAfter: event.identity.retryAfter, random: .shared)
    }

    /// A retry of `event` when `policy` allows one more attempt and `budget` (if any) pays for it, then taken from
    /// it; nil otherwise. The one place the handlers decide a policy's retry (`Recover`'s strategies and
    /// `FollowDescriptor`).
    static func plannedRetry(_ policy: RetryPolicy?, _ event: ErrorEvent, budget: RetryBudget?) -> Recovery? {
        guard let policy, policy.allowsRetry(after: event.attempt), budget?.tryRetry() ?? true else { return nil }
        return .retry(after: wait(policy, event))
    }
}
