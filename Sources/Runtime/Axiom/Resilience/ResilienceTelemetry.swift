import CoreMetrics
import Logging

/// What the resilience stages report, through swift-metrics and swift-log, when they are given one: Polly's
/// telemetry in this framework's terms.
///
/// - `axiom_resilience_events_total{pipeline, stage, event, operation, outcome}`: a counter of resilience events:
///   `retry` (outcome: the failed attempt's code), `timeout` (outcome: `axiom.resilience/timeout` or
///   `attemptTimeout`), `rejection` (a limiter's, outcome its code; the breaker's, outcome its state), `hedge`
///   (outcome: `delay` or `failure`, what started it), `budgetExhausted` (a retry or hedge the `RetryBudget`
///   refused; outcome: the failed attempt's code, or what would have started the hedge); the breaker's
///   transitions are counted by the breaker itself (`axiom_circuit_breaker_transitions_total`);
/// - `axiom_resilience_attempt_duration_seconds{pipeline, operation, outcome}`: a timer of each attempt the
///   retry stage makes (outcome `success` or the code it failed with);
/// - `axiom_resilience_operation_duration_seconds{pipeline, operation, outcome}`: a timer of the whole
///   operation, recorded by ``ResilienceTelemetryStage`` (put it outermost).
///
/// Each event also goes to `onEvent` when one is given: `AxiomTracing`'s `ResilienceSpanEvents` records it on
/// the active span, so every retry, timeout, rejection and hedge is an event of the operation's trace.
///
/// A failed attempt that will be retried is logged at debug; the final failure is the layer's to log (its
/// pipeline's observers log it once, at the level of its severity), so a retried call does not flood the log
/// with errors. Stages without telemetry (the default) report nothing and read no clock for it. A class, so a
/// stage holding one stays one reference larger (stages are copied into the chain's closures on every call).
public final class ResilienceTelemetry: Sendable {
    /// The `pipeline` dimension: which chain reported (`payments`, `relay`).
    package let pipeline: String
    /// Where the metrics go.
    package let factory: any MetricsFactory
    /// Where failed attempts are logged, at debug.
    package let logger: Logger
    /// Hears every event, in the task of the operation that had it (so the operation's span is the active one).
    package let onEvent: (@Sendable (ResilienceEvent) -> Void)?

    /// Creates a reporter for the chain named `pipeline`.
    public init(
        pipeline: String, factory: any MetricsFactory = MetricsSystem.factory,
        logger: Logger = .axiom("axiom.resilience"), onEvent: (@Sendable (ResilienceEvent) -> Void)? = nil
    ) {
        self.pipeline = pipeline
        self.factory = factory
        self.logger = logger.redacting()
        self.onEvent = onEvent
    }

    /// Counts one resilience event, and hands it to ``onEvent``. `attempt` is the attempt that failed (a retry)
    /// and `delay` the wait before the next one, when the event has them.
    @usableFromInline package func event(
        _ event: String, stage: String, operation: String, outcome: String, attempt: Int? = nil,
        delay: Duration? = nil
    ) {
        onEvent?(
            ResilienceEvent(
                name: event, pipeline: pipeline, stage: stage, operation: operation, outcome: outcome,
                attempt: attempt, delay: delay))
        Counter(
            label: "axiom_resilience_events_total",
            dimensions: [
                ("pipeline", pipeline), ("stage", stage), ("event", event), ("operation", operation),
                ("outcome", outcome),
            ],
            factory: factory
        ).increment()
    }

    /// Records how long one attempt took and how it ended.
    @usableFromInline package func attempt(operation: String, outcome: String, duration: Duration) {
        record("axiom_resilience_attempt_duration_seconds", operation: operation, outcome: outcome, duration)
    }

    /// Records how long a whole operation took and how it ended.
    @usableFromInline package func operation(_ operation: String, outcome: String, duration: Duration) {
        record("axiom_resilience_operation_duration_seconds", operation: operation, outcome: outcome, duration)
    }

    /// Records one duration in the timer `label`.
    private func record(_ label: String, operation: String, outcome: String, _ duration: Duration) {
        Timer(
            label: label, dimensions: [("pipeline", pipeline), ("operation", operation), ("outcome", outcome)],
            factory: factory
        ).recordNanoseconds(duration.wholeNanoseconds)
    }

    /// Logs a failed attempt that will be retried, at debug.
    @usableFromInline package func failedAttempt(operation: String, attempt: Int, code: ErrorCode, wait: Duration) {
        logger.debug(
            "attempt \(attempt) of \(operation) failed with \(code); retrying in \(wait)",
            metadata: [
                "pipeline": "\(pipeline)", "operation": "\(operation)", "attempt": "\(attempt)", "code": "\(code)",
            ])
    }
}

/// One resilience event, as `ResilienceTelemetry.onEvent` hears it.
public struct ResilienceEvent: Sendable, Hashable {
    /// `retry`, `timeout`, `rejection`, `hedge` or `budgetExhausted`.
    public var name: String
    /// The chain that reported.
    public var pipeline: String
    /// The stage: `retry`, `timeout` (total or per attempt), `breaker`, `concurrencyLimiter`, `rateLimiter`,
    /// `hedging`.
    public var stage: String
    /// The operation's name.
    public var operation: String
    /// The failed attempt's code (a retry, or a retry the budget refused), the refusal's code or the breaker's
    /// state (a rejection), what started a hedge or would have (`delay` or `failure`).
    public var outcome: String
    /// The attempt that failed, from 1, for a retry.
    public var attempt: Int?
    /// The wait before the next attempt, for a retry.
    public var delay: Duration?
}

/// Times whole operations for ``ResilienceTelemetry``: outermost in a chain, it records each operation's duration
/// and outcome (`success`, or the code it failed with).
public struct ResilienceTelemetryStage: OperationMiddleware {
    /// Where it reports.
    @usableFromInline package let telemetry: ResilienceTelemetry
    /// The clock durations are measured on.
    package let clock: RuntimeClock
    /// Identifies failures by code.
    @usableFromInline package let registry: ErrorRegistry

    /// Creates the stage.
    public init(
        _ telemetry: ResilienceTelemetry, clock: some Clock<Duration> = ContinuousClock(),
        registry: ErrorRegistry = .shared
    ) {
        self.telemetry = telemetry
        self.clock = RuntimeClock(clock)
        self.registry = registry
    }

    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        let start = clock.now()
        do {
            let value = try await next(context)
            telemetry.operation(context.name, outcome: "success", duration: clock.now() - start)
            return value
        } catch {
            telemetry.operation(
                context.name, outcome: "\(registry.identity(of: error).code)", duration: clock.now() - start)
            throw error
        }
    }
}
