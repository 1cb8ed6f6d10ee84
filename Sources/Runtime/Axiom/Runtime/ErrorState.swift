/// The error a context shows its user, with what it takes to get past it (whether the user must act to recover).
public struct ErrorState: Sendable {
    /// The error.
    public let error: any Error
    /// Its identity.
    public let code: ErrorCode
    /// When it happened, on the context's clock (time since the context's error store was created).
    public let timestamp: Duration
    /// Whether retrying as is cannot help: the user must act first (add funds, reconnect, fix the input).
    /// True when the error's descriptor has no retry policy.
    public var requiresManualRecovery: Bool
    /// The operation that failed, to run again; nil when it cannot be.
    package let retryOperation: (@Sendable () async throws -> Void)?
    /// The name of the operation that failed.
    public let operation: String
}

/// A context's error state and its observers. Declare one as a stored property of the context actor.
public struct ErrorStateStore: Sendable {
    /// The error shown now, if any.
    package internal(set) var current: ErrorState?
    /// Whether a retry of the last operation is running.
    package internal(set) var isRecovering = false
    /// The clock error timestamps come from.
    package let clock: RuntimeClock
    let broadcaster = Broadcaster<ErrorState?>()

    /// Creates an empty store whose timestamps come from `clock`.
    public init(clock: some Clock<Duration> = ContinuousClock()) { self.clock = RuntimeClock(clock) }

    mutating func set(_ state: ErrorState?) {
        current = state
        broadcaster.publish(state)
    }
}
