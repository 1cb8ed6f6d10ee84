/// How a connection is re-established: how many tries, how far apart, and what error ends a hopeless one.
///
/// ``failing(with:maxAttempts:interval:)`` makes the common shape: a fixed number of tries a fixed time apart,
/// then a ``DomainError`` with the code the caller names (a SIP gateway's registration, say: 3 tries, 3 s
/// apart, then the gateway plugin's `GATEWAY_NOT_REGISTERED`).
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

    /// Tries in all, the first one included.
    public var maxAttempts: Int
    /// The wait between two tries.
    public var interval: Duration
    /// The error thrown when every try failed, made from the last try's error.
    public var exhausted: @Sendable (_ lastError: any Error) -> any Error

    /// Creates a policy.
    public init(
        maxAttempts: Int, interval: Duration, exhausted: @escaping @Sendable (_ lastError: any Error) -> any Error
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.interval = interval
        self.exhausted = exhausted
    }

    /// A policy of `maxAttempts` tries, `interval` apart, that ends in a ``DomainError`` with `code` (its
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

    /// Runs `connect` until it succeeds or the tries run out, waiting `interval` between tries on `clock`.
    ///
    /// - Throws: the policy's ``exhausted`` error after the last try; `CancellationError` at once when the task
    ///   is cancelled.
    public func run<T: Sendable>(
        clock: some Clock<Duration>, onState: (@Sendable (State) -> Void)? = nil,
        _ connect: (_ attempt: Int) async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            try Task.checkCancellation()
            onState?(.connecting(attempt: attempt))
            do {
                let value = try await connect(attempt)
                onState?(.connected(attempt: attempt))
                return value
            } catch {
                if error is CancellationError { throw error }
                guard attempt < maxAttempts else {
                    onState?(.failed(attempts: attempt))
                    throw exhausted(error)
                }
                onState?(.waiting(attempt: attempt, delay: interval))
                try await clock.sleep(for: interval)
                attempt += 1
            }
        }
    }
}
