import CoreMetrics

/// One failed attempt, as the retry stage sees it when deciding whether to try again.
public struct RetryAttempt: Sendable {
    /// What the attempt threw.
    public let error: any Error
    /// The error's identity, with any `Retry-After` it carried.
    public let identity: ErrorIdentity
    /// The policy that applies to it; nil when it must not be retried.
    public let policy: RetryPolicy?
    /// Which attempt failed, from 1: the attempt number the stages and the error event carry.
    public let attempt: Int
    /// The operation's name.
    public let operation: String
}

/// Runs the rest of the chain again when it fails with an error that may be retried.
///
/// The policy of an error comes from the registry: a registered code follows its descriptor's `retry` (none
/// means never retried, as for NWC `INSUFFICIENT_BALANCE`); an error the registry does not know follows
/// `defaultPolicy`. A policy's `maxAttempts` counts every call of the operation (the first included, so Polly's
/// `MaxRetryAttempts` + 1), from the attempt number the stage receives: when a layer's pipeline runs the chain
/// again it passes the next attempt number, so the stage and the pipeline share one count.
///
/// Waits come from the retry engine (`RetryPolicy.wait(forRetry:retryAfter:state:random:)`): the policy's
/// backoff with jitter of the same shape, or a `Retry-After` carried by the error when the policy honours it,
/// every wait capped at the policy's `maxDelay`. `shouldRetry` can veto any retry; `onRetry` hears of each one
/// with its wait (Polly's `OnRetry`). Waits happen on the injected clock; cancellation ends the stage at once with
/// `CancellationError`.
///
/// A `RetryBudget` given to the stage caps retries across calls: when it is spent, a retry the policy allows
/// is not made and the error passes on as it is (counted as a `budgetExhausted` event by the telemetry).
///
/// A ``Configuration`` with a `fixedPolicy` makes a stage that applies one policy to every error, whatever the
/// registry says: ``ReconnectionPolicy`` runs its tries through such a stage.
///
/// In a chain, the standard order (Microsoft's resilience pipeline) puts the retry inside a total timeout and
/// outside the breaker and a per-attempt timeout: limiter → total timeout → retry → breaker → attempt timeout.
/// A total timeout must outlive the longest series of waits it contains, or it cuts the retry off and its
/// `TimeoutError` replaces the error that was being retried.
public struct RetryStage: OperationMiddleware {
    /// Where policies come from.
    @usableFromInline package let registry: ErrorRegistry
    /// The clock waits happen on.
    @usableFromInline package let clock: RuntimeClock
    /// The policy of errors whose code is not registered; nil means they are not retried.
    @usableFromInline package let defaultPolicy: RetryPolicy?
    /// The policy of every error when set, the registry's notwithstanding.
    @usableFromInline package let fixedPolicy: RetryPolicy?
    /// Hears of each retry, with the failed attempt and the wait before the next one.
    @usableFromInline package let onRetry: (@Sendable (RetryAttempt, Duration) -> Void)?
    /// Where retries, attempt durations and failed attempts are reported; nil: nowhere, and no clock is read.
    @usableFromInline package let telemetry: ResilienceTelemetry?
    // Read on the hot path instead of `telemetry`: testing the optional struct would copy it (retains).
    @usableFromInline let reports: Bool
    /// A veto per error: return false to stop retrying it.
    @usableFromInline package let shouldRetry: (@Sendable (RetryAttempt) -> Bool)?
    /// Random source for jittered policies.
    @usableFromInline package let random: RandomSource
    /// The retry budget the stage draws from, shared with the other stages and handlers given it; nil: retries
    /// are limited by their policies alone. Each call the stage starts (attempt 1) deposits in it.
    @usableFromInline package let budget: RetryBudget?
    @usableFromInline
    let retries: Counter

    /// How a retry stage decides and reports: where its policies come from, who may veto a retry, what hears of
    /// each one, the budget it draws from. The stage's one configuration value; its clock is the stage's own
    /// parameter.
    public struct Configuration: Sendable {
        /// Where policies come from.
        package var registry: ErrorRegistry
        /// The policy of errors whose code is not registered; nil means they are not retried.
        package var defaultPolicy: RetryPolicy?
        /// The policy of every error when set, the registry's notwithstanding.
        package var fixedPolicy: RetryPolicy?
        /// Random source for jittered policies.
        package var random: RandomSource
        /// Where the retry counter goes.
        package var metrics: any MetricsFactory
        /// A veto per error.
        package var shouldRetry: (@Sendable (RetryAttempt) -> Bool)?
        /// Hears of each retry.
        package var onRetry: (@Sendable (RetryAttempt, Duration) -> Void)?
        /// Where retries, attempt durations and failed attempts are reported.
        package var telemetry: ResilienceTelemetry?
        /// The retry budget the stage draws from.
        package var budget: RetryBudget?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - registry: where each error's policy comes from: a registered code follows its descriptor's `retry`.
        ///   - defaultPolicy: the policy of an error the registry does not know; nil: such an error is not retried.
        ///   - fixedPolicy: one policy for every error but cancellation, whatever the registry says (a reconnection
        ///     loop's tries); `registry` and `defaultPolicy` are then not read. `maxAttempts` counts every call,
        ///     the first included.
        ///   - random: the random source of jittered waits (seed it for repeatable tests).
        ///   - metrics: where the `axiom_retries_total` counter goes.
        ///   - shouldRetry: a veto per failed attempt: return false to stop retrying it.
        ///   - onRetry: hears of each retry, with the failed attempt and the wait before the next one.
        ///   - telemetry: where retries, attempt durations and failed attempts are reported; nil: nowhere, and no
        ///     clock is read.
        ///   - budget: caps retries across calls, shared with the other stages and handlers given it; nil: retries
        ///     are limited by their policies alone. Each call the stage starts (attempt 1) deposits in it.
        public init(
            registry: ErrorRegistry = .shared, defaultPolicy: RetryPolicy? = nil, fixedPolicy: RetryPolicy? = nil,
            random: RandomSource = RandomSource(), metrics: any MetricsFactory = MetricsSystem.factory,
            shouldRetry: (@Sendable (RetryAttempt) -> Bool)? = nil,
            onRetry: (@Sendable (RetryAttempt, Duration) -> Void)? = nil, telemetry: ResilienceTelemetry? = nil,
            budget: RetryBudget? = nil
        ) {
            self.registry = registry
            self.defaultPolicy = fixedPolicy ?? defaultPolicy
            self.fixedPolicy = fixedPolicy
            self.random = random
            self.metrics = metrics
            self.shouldRetry = shouldRetry
            self.onRetry = onRetry
            self.telemetry = telemetry
            self.budget = budget
        }
    }

    /// Creates the stage; its waits happen on `clock`.
    public init(configuration: Configuration = Configuration(), clock: some Clock<Duration> = ContinuousClock()) {
        self.init(configuration: configuration, runtimeClock: RuntimeClock(clock))
    }

    /// Creates the stage on an already wrapped clock.
    package init(configuration: Configuration = Configuration(), runtimeClock: RuntimeClock) {
        self.init(
            registry: configuration.registry, runtimeClock: runtimeClock, defaultPolicy: configuration.defaultPolicy,
            fixedPolicy: configuration.fixedPolicy, random: configuration.random, metrics: configuration.metrics,
            shouldRetry: configuration.shouldRetry, onRetry: configuration.onRetry,
            telemetry: configuration.telemetry, budget: configuration.budget)
    }

    init(
        registry: ErrorRegistry, runtimeClock: RuntimeClock, defaultPolicy: RetryPolicy?, fixedPolicy: RetryPolicy?,
        random: RandomSource, metrics: any MetricsFactory, shouldRetry: (@Sendable (RetryAttempt) -> Bool)?,
        onRetry: (@Sendable (RetryAttempt, Duration) -> Void)?, telemetry: ResilienceTelemetry?,
        budget: RetryBudget?
    ) {
        self.registry = registry
        self.clock = runtimeClock
        self.defaultPolicy = defaultPolicy
        self.fixedPolicy = fixedPolicy
        self.random = random
        self.shouldRetry = shouldRetry
        self.onRetry = onRetry
        self.telemetry = telemetry
        self.reports = telemetry != nil
        self.budget = budget
        self.retries = Counter(label: "axiom_retries_total", factory: metrics)
    }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        if let budget, context.attempt == 1 { budget.recordCall() }
        if reports { return try await runReporting(context: context, next: next) }
        var context = context
        var state = RetryBackoffState()
        while true {
            do {
                return try await next(context)
            } catch {
                let wait = try decide(error, attempt: context.attempt, operation: context.name, state: &state)
                try await clock.sleep(for: wait)
                context.attempt += 1
            }
        }
    }

    /// `run` with telemetry: each attempt timed, each retry counted and logged at debug.
    @usableFromInline
    nonisolated(nonsending) func runReporting<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        var context = context
        var state = RetryBackoffState()
        while true {
            let start = clock.now()
            do {
                let value = try await next(context)
                telemetry?.attempt(operation: context.name, outcome: "success", duration: clock.now() - start)
                return value
            } catch {
                let code = registry.identity(of: error).code
                telemetry?.attempt(operation: context.name, outcome: "\(code)", duration: clock.now() - start)
                let wait = try decide(error, attempt: context.attempt, operation: context.name, state: &state)
                telemetry?.event(
                    "retry", stage: "retry", operation: context.name, outcome: "\(code)", attempt: context.attempt,
                    delay: wait)
                telemetry?.failedAttempt(operation: context.name, attempt: context.attempt, code: code, wait: wait)
                try await clock.sleep(for: wait)
                context.attempt += 1
            }
        }
    }

    /// The wait before the next attempt, or the error rethrown when there is none.
    @usableFromInline
    func decide(_ error: any Error, attempt: Int, operation: String, state: inout RetryBackoffState) throws -> Duration
    {
        if error is CancellationError || Task.isCancelled { throw error }
        let identity = registry.identity(of: error)
        let policy: RetryPolicy?
        if let fixedPolicy {
            policy = fixedPolicy
        } else if let descriptor = registry.descriptor(for: identity.code) {
            policy = descriptor.retry
        } else {
            policy = defaultPolicy
        }
        guard let policy, policy.allowsRetry(after: attempt) else { throw error }
        let failed = RetryAttempt(
            error: error, identity: identity, policy: policy, attempt: attempt, operation: operation)
        if let shouldRetry, !shouldRetry(failed) { throw error }
        if let budget, !budget.tryRetry() {
            telemetry?.event(
                "budgetExhausted", stage: "retry", operation: operation, outcome: "\(identity.code)", attempt: attempt)
            throw error
        }
        retries.increment()
        let wait = policy.wait(forRetry: attempt, retryAfter: identity.retryAfter, state: &state, random: random)
        onRetry?(failed, wait)
        return wait
    }
}
