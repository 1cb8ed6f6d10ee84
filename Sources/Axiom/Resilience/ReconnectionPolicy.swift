/// How a connection is re-established: how many tries, how far apart, and what error ends a hopeless one.
///
/// The preset ``gatewayRegistration`` follows the WebRTC SDK (seed 003): registration is tried 3 times, 3 s
/// apart, and then fails with the `telnyx/GATEWAY_NOT_REGISTERED` error.
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

    /// The identity of the error a failed gateway registration ends in.
    public static let gatewayNotRegisteredCode = ErrorCode("telnyx", "GATEWAY_NOT_REGISTERED")

    /// Gateway registration (seed 003): 3 tries, 3 s apart, then `telnyx/GATEWAY_NOT_REGISTERED`.
    public static var gatewayRegistration: ReconnectionPolicy {
        ReconnectionPolicy(maxAttempts: 3, interval: .seconds(3)) { lastError in
            DomainError(
                domain: gatewayNotRegisteredCode.domain, code: gatewayNotRegisteredCode.code,
                message: "gateway registration failed after 3 tries", metadata: ["lastError": "\(lastError)"])
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
