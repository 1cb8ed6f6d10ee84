#if Tracing
import Instrumentation
import Tracing

/// The trace and span ids of a service context, as the bootstrapped instrument propagates them.
///
/// Tracers keep their ids in their own types, so these are read the way a peer would read them: the instrument
/// injects the context into a dictionary, and the ids come from a W3C `traceparent` entry (OpenTelemetry's
/// tracers, swift-otel among them) or from entries whose keys end in `trace-id` and `span-id` (the in-memory
/// tracer). A context without a span, or a tracer that propagates neither, has none.
public struct TraceIdentifiers: Sendable, Hashable {
    /// The trace id: 32 lower-case hex digits for W3C tracers.
    public var traceID: String
    /// The span id: 16 lower-case hex digits for W3C tracers.
    public var spanID: String

    /// Creates ids.
    package init(traceID: String, spanID: String) {
        self.traceID = traceID
        self.spanID = spanID
    }

    /// The ids of the task's current context, if it has a span.
    public static var current: TraceIdentifiers? {
        guard let context = ServiceContext.current else { return nil }
        return of(context)
    }

    /// The ids `context` carries, if it has a span.
    package static func of(_ context: ServiceContext) -> TraceIdentifiers? {
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: DictionaryInjector())
        if let parent = carrier["traceparent"], let ids = fromTraceparent(parent) { return ids }
        let trace = carrier.first { $0.key.hasSuffix("trace-id") }?.value
        let span = carrier.first { $0.key.hasSuffix("span-id") }?.value
        guard let trace, let span, !trace.isEmpty, !span.isEmpty else { return nil }
        return TraceIdentifiers(traceID: trace, spanID: span)
    }

    /// The ids of a W3C `traceparent` value, `00-<32 hex>-<16 hex>-<2 hex>`, unless either is all zeros.
    package static func fromTraceparent(_ value: String) -> TraceIdentifiers? {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[1].count == 32, parts[2].count == 16,
            parts[1].allSatisfy(\.isHexDigit), parts[2].allSatisfy(\.isHexDigit),
            parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" })
        else { return nil }
        return TraceIdentifiers(traceID: String(parts[1]).lowercased(), spanID: String(parts[2]).lowercased())
    }
}

/// Writes injected values into a dictionary.
struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
#endif
