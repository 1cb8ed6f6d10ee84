#if Tracing
import AxiomCore
import Tracing

/// Records every decided error on the span active in the deciding task: one span event `axiom.error` with the
/// error's identity, fate and a redacted message.
///
/// The attributes: `error.type` (`domain/code`), `axiom.error.category`, `axiom.error.disposition` (how the
/// episode ended: `ignore`, `recover`, `escalate`, `handle`), `axiom.error.layer`, `axiom.error.operation`,
/// `axiom.error.attempts` (how many attempts the episode took) and `axiom.error.message`: the error's description
/// through the `Redactor`, or nothing at all for a code whose descriptor is sensitive. The span's status is not
/// set here: a recovered or ignored error is no failure of the span; ``TracingInstrument`` sets it from the final
/// outcome.
///
/// Register it with the other observers (`ErrorObserverSystem/bootstrap(_:)` or a configuration's
/// `observers`). The current span is found through the bootstrapped tracer's `activeSpan(identifiedBy:)`, so the
/// tracer must support it (swift-otel's and the in-memory tracer do).
public struct TracingErrorObserver: ErrorObserver {
    /// The name of the span event.
    package static let eventName = "axiom.error"

    private let redactor: Redactor
    private let tracer: (any Tracer)?

    /// An observer that redacts messages with `redactor` and finds spans through `tracer` (nil: the bootstrapped
    /// one, looked up at each event).
    public init(redactor: Redactor = Redactor(), tracer: (any Tracer)? = nil) {
        self.redactor = redactor
        self.tracer = tracer
    }

    public func observe(_ event: ErrorEvent, disposition: Disposition) {
        guard let span = activeSpan(tracer) else { return }
        span.addEvent(SpanEvent(name: Self.eventName, attributes: attributes(event, disposition)))
    }

    /// The event's attributes.
    func attributes(_ event: ErrorEvent, _ disposition: Disposition) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes["error.type"] = event.code.description
        attributes["axiom.error.category"] = event.category.rawValue
        attributes["axiom.error.disposition"] = disposition.rawValue
        attributes["axiom.error.layer"] = event.layer.name
        attributes["axiom.error.operation"] = event.operation
        attributes["axiom.error.attempts"] = Int64(event.attempt)
        if !event.descriptor.isSensitive {
            attributes["axiom.error.message"] = redactor.redact(String(describing: event.error))
        }
        return attributes
    }
}

/// The span active in this task, as `tracer` (nil: the bootstrapped tracer) knows it.
package func activeSpan(_ tracer: (any Tracer)? = nil) -> (any Span)? {
    guard let context = ServiceContext.current else { return nil }
    return (tracer ?? InstrumentationSystem.tracer).activeSpan(identifiedBy: context)
}
#endif
