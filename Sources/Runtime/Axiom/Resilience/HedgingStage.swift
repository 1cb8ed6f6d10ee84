/// Starts another attempt when the first is slow or fails, and takes the first success: Polly's hedging.
///
/// The first attempt starts at once; while no attempt has succeeded, another starts `delay` after the previous
/// one, or at once when one fails with an error `shouldHedge` accepts, until `maxHedges` more have started. The
/// first success wins: every other attempt is cancelled, and the stage returns once they have stopped. An
/// error `shouldHedge` refuses ends the call with that error at once (the others cancelled); when every attempt
/// failed, the last failure is thrown.
///
/// The caller's cancellation is checked before each hedge, as Polly does: once the caller is cancelled no hedge
/// starts, whatever delay passes or attempt fails; the attempts already running are cancelled and decide the
/// call when they stop.
///
/// Attempts run concurrently, each in a child task of a task group, and carry their own attempt numbers
/// (`context.attempt`, then the next ones), so the stages inside and the error event tell them apart. Use it
/// for idempotent reads whose latency matters; its happy path pays a task group (a few microseconds).
///
/// A hedge is a retry made early, so a `RetryBudget` given to the stage pays for each hedge: when it is spent
/// the hedge is not started (counted as a `budgetExhausted` event by the telemetry) and the attempts already
/// running decide the call. Each call the stage starts (attempt 1) deposits in the budget.
public struct HedgingStage: OperationMiddleware {
    /// How many attempts may start besides the first.
    @usableFromInline package let maxHedges: Int
    /// How long an attempt runs before the next one starts.
    @usableFromInline package let delay: Duration
    /// The clock delays are measured on.
    package let clock: RuntimeClock
    /// Whether a failure starts the next attempt at once (true) or ends the call (false). Cancellation never
    /// hedges.
    @usableFromInline package let shouldHedge: @Sendable (any Error) -> Bool
    /// Where hedges are counted (`axiom_resilience_events_total{event="hedge", outcome="delay"|"failure"}`).
    @usableFromInline package let telemetry: ResilienceTelemetry?
    /// The retry budget each hedge is taken from, shared with the retry stages given it; nil: no limit but
    /// ``maxHedges``.
    @usableFromInline package let budget: RetryBudget?

    /// Creates the stage.
    ///
    /// - Throws: `ResilienceConfigurationError` when `maxHedges` is below 1 or `delay` is negative.
    public init(
        maxHedges: Int = 1, delay: Duration, clock: some Clock<Duration> = ContinuousClock(),
        shouldHedge: @escaping @Sendable (any Error) -> Bool = { _ in true }, telemetry: ResilienceTelemetry? = nil,
        budget: RetryBudget? = nil
    ) throws(ResilienceConfigurationError) {
        guard maxHedges >= 1 else {
            throw ResilienceConfigurationError(
                component: "hedging stage", option: "maxHedges", reason: "must be at least 1, got \(maxHedges)")
        }
        guard delay >= .zero else {
            throw ResilienceConfigurationError(
                component: "hedging stage", option: "delay", reason: "must not be negative, got \(delay)")
        }
        self.maxHedges = maxHedges
        self.delay = delay
        self.clock = RuntimeClock(clock)
        self.shouldHedge = shouldHedge
        self.telemetry = telemetry
        self.budget = budget
    }

    /// Whether the budget, if any, pays for a hedge that `reason` (`delay` or `failure`) would start.
    func mayHedge(_ context: OperationContext, _ reason: String) -> Bool {
        guard let budget, !budget.tryRetry() else { return true }
        telemetry?.event("budgetExhausted", stage: "hedging", operation: context.name, outcome: reason)
        return false
    }

    enum Event<Output: Sendable>: Sendable {
        case finished(Output)
        case failed(any Error)
        /// The delay after the start of attempt number `after` (counted from 1 in this call) has passed.
        case timer(after: Int)
    }

    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        if let budget, context.attempt == 1 { budget.recordCall() }
        return try await withoutActuallyEscaping(next) { next in
            try await withThrowingTaskGroup(of: Event<Output>.self) { group in
                var started = 0
                var running = 0
                let limit = 1 + maxHedges
                func start() {
                    var attempt = context
                    attempt.attempt = context.attempt + started
                    started += 1
                    running += 1
                    group.addTask {
                        do {
                            return .finished(try await next(attempt))
                        } catch {
                            return .failed(error)
                        }
                    }
                    if started < limit {
                        group.addTask { [clock, delay, started] in
                            // A cancelled timer (the call is over, or the caller was cancelled) fires at once;
                            // the loop starts no hedge then.
                            try? await clock.sleep(for: delay)
                            return .timer(after: started)
                        }
                    }
                }
                start()
                defer { group.cancelAll() }
                var lastError: (any Error)?
                while let event = try await group.next() {
                    switch event {
                    case .finished(let value):
                        return value
                    case .failed(let error):
                        running -= 1
                        lastError = error
                        if error is CancellationError || Task.isCancelled || !shouldHedge(error) { throw error }
                        if started < limit, mayHedge(context, "failure") {
                            telemetry?.event("hedge", stage: "hedging", operation: context.name, outcome: "failure")
                            start()
                        } else if running == 0 {
                            throw error
                        }
                    case .timer(let after):
                        // Only the timer of the latest attempt counts: an attempt started early (a failure)
                        // restarts the delay. A cancelled caller wakes every timer at once: no hedge then.
                        if after == started, running > 0, started < limit, !Task.isCancelled,
                            mayHedge(context, "delay")
                        {
                            telemetry?.event("hedge", stage: "hedging", operation: context.name, outcome: "delay")
                            start()
                        }
                    }
                }
                throw lastError ?? CancellationError()
            }
        }
    }
}
