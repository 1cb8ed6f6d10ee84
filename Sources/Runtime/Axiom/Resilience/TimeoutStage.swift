/// Ends a call that takes longer than `limit`: the call's task is cancelled and `TimeoutError` thrown.
///
/// The call runs inline, on the caller's task: the stage notes a deadline with the stage's shared timer (one
/// task per stage, not one per call) and the timer cancels the task of a call still running past it. The happy
/// path costs a coarse clock reading (on the system clocks), two short critical sections and no allocation; the
/// timer's precision is a kernel tick (1 to 4 ms), and a call is never cut off before its limit. Cancellation is
/// cooperative: the stage returns once the cancelled work has stopped, so nothing the work does outlives the call.
/// A call that finishes with a value though it was cancelled keeps its value. Time is measured on the injected
/// clock.
///
/// Cancelling a task cannot be undone: after a `TimeoutError` the task that ran the call is cancelled. Use
/// this stage as the total timeout, around the retry stage (limiter → total timeout → retry → breaker →
/// attempt timeout), with a limit that outlives every wait the retry may make, or its `TimeoutError`
/// replaces the error being retried. To limit each attempt inside a retry, use ``AttemptTimeoutStage``, which
/// gives each attempt a child task so that a timed-out attempt can be retried.
///
/// Build a chain once and reuse it: each stage value made by an initialiser has its own timer.
public struct TimeoutStage: OperationMiddleware {
    /// The longest a call may take.
    @usableFromInline package let limit: Duration
    /// The clock the limit is measured on.
    package let clock: RuntimeClock
    /// Where timeouts are counted (`axiom_resilience_events_total{event="timeout"}`); nil: nowhere.
    @usableFromInline package let telemetry: ResilienceTelemetry?
    @usableFromInline
    let scheduler: DeadlineScheduler
    /// `.operation`, or `.attempt` inside an ``AttemptTimeoutStage``: which identity its timeouts have.
    let scope: TimeoutError.Scope

    /// Creates the stage.
    public init(
        _ limit: Duration, clock: some Clock<Duration> = ContinuousClock(), telemetry: ResilienceTelemetry? = nil
    ) {
        self.init(limit, runtimeClock: RuntimeClock(clock), telemetry: telemetry)
    }

    /// Creates the stage on an already wrapped clock.
    package init(_ limit: Duration, runtimeClock: RuntimeClock, telemetry: ResilienceTelemetry? = nil) {
        self.init(limit, runtimeClock: runtimeClock, telemetry: telemetry, scope: .operation)
    }

    init(_ limit: Duration, runtimeClock: RuntimeClock, telemetry: ResilienceTelemetry?, scope: TimeoutError.Scope) {
        self.limit = limit
        self.clock = runtimeClock
        self.telemetry = telemetry
        self.scope = scope
        self.scheduler = DeadlineScheduler(clock: runtimeClock, limit: limit)
    }

    /// The error of a call the timer cancelled, counted.
    @usableFromInline
    func timedOut(_ context: OperationContext) -> TimeoutError {
        let error = TimeoutError(operation: context.name, limit: limit, scope: scope)
        telemetry?.event("timeout", stage: "timeout", operation: context.name, outcome: "\(error.errorCode)")
        return error
    }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        let ticket = scheduler.register()
        do {
            let value = try await next(context)
            _ = scheduler.deregister(ticket)
            return value
        } catch {
            if scheduler.deregister(ticket) { throw timedOut(context) }
            throw error
        }
    }
}

/// Ends one attempt that takes longer than `limit`, leaving the operation free to try again: the per-attempt
/// timeout, innermost in the standard order (limiter → total timeout → retry → breaker → attempt timeout).
///
/// Each attempt runs in a child task (an `async let`, allocated from the caller's task allocator), so the
/// timeout cancels the attempt alone, not the caller's task; a retry stage outside it then sees a
/// `TimeoutError` it may retry. Its timeouts are `axiom.resilience/attemptTimeout`, whose descriptor has a retry
/// policy (3 calls in all, exponential from 200 ms with jitter, at most 5 s), so a `RetryStage` that follows the
/// registry retries them; a ``TimeoutStage``'s `axiom.resilience/timeout` is never retried. The child task costs a
/// hop to the global executor and back per call, which ``TimeoutStage`` avoids: use that one where a timed-out
/// call is final.
public struct AttemptTimeoutStage: OperationMiddleware {
    /// The longest one attempt may take.
    @usableFromInline package let limit: Duration
    @usableFromInline
    let inner: TimeoutStage

    /// Creates the stage.
    public init(
        _ limit: Duration, clock: some Clock<Duration> = ContinuousClock(), telemetry: ResilienceTelemetry? = nil
    ) {
        self.init(limit, runtimeClock: RuntimeClock(clock), telemetry: telemetry)
    }

    /// Creates the stage on an already wrapped clock.
    package init(_ limit: Duration, runtimeClock: RuntimeClock, telemetry: ResilienceTelemetry? = nil) {
        self.limit = limit
        self.inner = TimeoutStage(limit, runtimeClock: runtimeClock, telemetry: telemetry, scope: .attempt)
    }

    @inlinable
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await withoutActuallyEscaping(next) { next in
            async let attempt = inner.run(context: context, next: next)
            return try await attempt
        }
    }
}
