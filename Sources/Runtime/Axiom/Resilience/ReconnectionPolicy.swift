import CoreMetrics
import Synchronization

/// How a connection is re-established: how many tries, how far apart, and what error ends a hopeless one.
///
/// A preset of the retry engine: its tries run through a ``RetryStage`` applying its `RetryPolicy` to every error, so
/// waits, jitter and the attempt count mean what they mean everywhere else. ``failing(with:maxAttempts:interval:)``
/// makes the common shape: a fixed number of tries a fixed time apart, then a `DomainError` with the code the
/// caller names (a SIP gateway's registration, say: 3 tries, 3 s apart, then the gateway plugin's
/// `GATEWAY_NOT_REGISTERED`).
public struct ReconnectionPolicy: Sendable {
    /// Where a reconnection stands, reported to the `onState` callback.
    public enum State: Sendable, Hashable {
        /// Try number `attempt` (from 1) is running.
        case connecting(attempt: Int)
        /// Try number `attempt` failed; the next one starts after `delay`.
        case waiting(attempt: Int, delay: Duration)
        /// A try succeeded.
        case connected(attempt: Int)
        /// Every try failed.
        case failed(attempts: Int)
    }

    /// The retry engine's policy for the tries: `maxAttempts` counts every try, the first included.
    package var policy: RetryPolicy
    /// The error thrown when every try failed, made from the last try's error.
    package var exhausted: @Sendable (_ lastError: any Error) -> any Error

    /// Tries in all, the first one included.
    package var maxAttempts: Int {
        get { policy.maxAttempts }
        set { policy.maxAttempts = max(1, newValue) }
    }

    /// The wait between two tries (the policy's base delay).
    package var interval: Duration {
        get { policy.delay }
        set { policy.delay = newValue }
    }

    /// Creates a policy of `maxAttempts` tries (the first included) `interval` apart.
    package init(
        maxAttempts: Int, interval: Duration, exhausted: @escaping @Sendable (_ lastError: any Error) -> any Error
    ) {
        self.init(policy: .reconnection(maxAttempts: maxAttempts, interval: interval), exhausted: exhausted)
    }

    /// Creates a policy whose tries follow `policy` (backoff, jitter, cap): any retry policy can reconnect.
    public init(policy: RetryPolicy, exhausted: @escaping @Sendable (_ lastError: any Error) -> any Error) {
        self.policy = policy
        self.exhausted = exhausted
    }

    /// A policy of `maxAttempts` tries, `interval` apart, that ends in a `DomainError` with `code` (its
    /// metadata `lastError` says how the last try failed). The code is usually a plugin's, so that the error
    /// is registered with its fate and texts.
    public static func failing(
        with code: ErrorCode, maxAttempts: Int = 3, interval: Duration = .seconds(3)
    ) -> ReconnectionPolicy {
        ReconnectionPolicy(maxAttempts: maxAttempts, interval: interval) { lastError in
            DomainError(
                domain: code.domain, code: code.code, message: "gave up after \(max(1, maxAttempts)) tries",
                metadata: ["lastError": "\(lastError)"])
        }
    }

    /// Runs `connect` until it succeeds or the tries run out, waiting as its `RetryPolicy` says between tries on
    /// `clock`.
    ///
    /// - Throws: the policy's `exhausted` error after the last try; `CancellationError` at once when the task
    ///   is cancelled.
    public func run<T: Sendable>(
        clock: some Clock<Duration>, random: RandomSource = .shared, onState: (@Sendable (State) -> Void)? = nil,
        _ connect: @escaping @Sendable (_ attempt: Int) async throws -> T
    ) async throws -> T {
        let stage = RetryStage(
            configuration: .init(
                fixedPolicy: policy, random: random,
                onRetry: { failed, wait in onState?(.waiting(attempt: failed.attempt, delay: wait)) }), clock: clock
        )
        let reached = Atomic<Int>(1)
        do {
            try Task.checkCancellation()
            return try await stage.run(context: OperationContext(name: "reconnect")) { context in
                reached.store(context.attempt, ordering: .relaxed)
                try Task.checkCancellation()
                onState?(.connecting(attempt: context.attempt))
                let value = try await connect(context.attempt)
                onState?(.connected(attempt: context.attempt))
                return value
            }
        } catch {
            if error is CancellationError || Task.isCancelled { throw error }
            onState?(.failed(attempts: reached.load(ordering: .relaxed)))
            throw exhausted(error)
        }
    }
}

extension RetryPolicy {
    /// The reconnection preset: `maxAttempts` tries (the first included) a constant `interval` apart, no jitter,
    /// no `Retry-After`, no cap below the interval.
    package static func reconnection(maxAttempts: Int = 3, interval: Duration = .seconds(3)) -> RetryPolicy {
        RetryPolicy(
            maxAttempts: maxAttempts, backoff: .constant, delay: interval, maxDelay: max(interval, .zero),
            jitter: false, honorsRetryAfter: false)
    }
}
