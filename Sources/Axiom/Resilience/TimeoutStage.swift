/// Ends a call that takes longer than `limit`: the rest of the chain is cancelled and ``TimeoutError`` thrown.
///
/// Cancellation is cooperative: the stage returns once the cancelled work has stopped, so nothing the work
/// does outlives the call. Time is measured on the injected clock. Placed before the retry stage, the limit
/// covers every attempt and every wait between them.
public struct TimeoutStage: OperationMiddleware {
    /// The longest a call may take.
    public let limit: Duration
    /// The clock the limit is measured on.
    public let clock: RuntimeClock

    /// Creates the stage.
    public init(_ limit: Duration, clock: some Clock<Duration> = ContinuousClock()) {
        self.init(limit, runtimeClock: RuntimeClock(clock))
    }

    /// Creates the stage on an already wrapped clock.
    public init(_ limit: Duration, runtimeClock: RuntimeClock) {
        self.limit = limit
        self.clock = runtimeClock
    }

    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        // The group awaits both children before returning, so `next` never outlives this call.
        try await withoutActuallyEscaping(next) { next in
            try await withThrowingTaskGroup(of: Race<Output>.self) { group in
                group.addTask { .finished(try await next(context)) }
                group.addTask { [clock, limit] in
                    try await clock.sleep(for: limit)
                    return .timedOut
                }
                defer { group.cancelAll() }
                switch try await group.next() {
                case .finished(let value):
                    return value
                case .timedOut, nil:
                    throw TimeoutError(operation: context.name, limit: limit)
                }
            }
        }
    }

    enum Race<Output: Sendable>: Sendable {
        case finished(Output)
        case timedOut
    }
}
