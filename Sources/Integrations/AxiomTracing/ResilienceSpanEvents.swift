#if Tracing
import Axiom
import Tracing

/// Records the resilience stages' events on the active span: each retry, timeout, rejection and hedge becomes a
/// span event `axiom.resilience.<name>` (`axiom.resilience.retry`, …) of the operation's trace.
///
/// ```swift
/// let telemetry = ResilienceTelemetry(pipeline: "payments", onEvent: ResilienceSpanEvents().record)
/// let chain = OperationChain {
///     TimeoutStage(.seconds(180), telemetry: telemetry)
///     RetryStage(configuration: .init(registry: .shared, telemetry: telemetry))
/// }
/// ```
///
/// Attributes: `axiom.resilience.pipeline`, `axiom.resilience.stage`, `axiom.resilience.operation`,
/// `axiom.resilience.outcome` (for a retry, the failed attempt's `domain/code`, also as `error.type`), and for a
/// retry `axiom.resilience.attempt` (the attempt that failed, from 1) and `axiom.resilience.delay_ms` (the wait
/// before the next one).
public struct ResilienceSpanEvents: Sendable {
    private let tracer: (any Tracer)?

    /// Events for the spans of `tracer` (nil: the bootstrapped one, looked up at each event).
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    /// Adds `event` to the span active in the calling task, if there is one.
    @Sendable public func record(_ event: ResilienceEvent) {
        guard let span = activeSpan(tracer) else { return }
        var attributes = SpanAttributes()
        attributes["axiom.resilience.pipeline"] = event.pipeline
        attributes["axiom.resilience.stage"] = event.stage
        attributes["axiom.resilience.operation"] = event.operation
        attributes["axiom.resilience.outcome"] = event.outcome
        if let attempt = event.attempt {
            attributes["axiom.resilience.attempt"] = Int64(attempt)
            attributes["error.type"] = event.outcome
        }
        if let delay = event.delay {
            attributes["axiom.resilience.delay_ms"] = delay.wholeNanoseconds / 1_000_000
        }
        span.addEvent(SpanEvent(name: "axiom.resilience.\(event.name)", attributes: attributes))
    }
}
#endif
