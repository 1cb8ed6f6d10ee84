#if Tracing
import AxiomCore
import Instrumentation
import Tracing

/// Joins crash reports to traces: runs an operation with its task announced to the crash reporter as working
/// for the span active now, so a crash while it runs writes the span's trace and span ids into the report
/// (`trace` in its JSON, the OTLP log record's `trace_id` when `AxiomOpenTelemetry` exports it).
///
/// `ProblemDetailsMiddleware` does this for every request of a Hummingbird router; call it around other units of
/// work (a job, a message handler) that run under a span:
///
/// ```swift
/// try await withSpan("settle") { _ in
///     try await CrashTrace.withCurrentSpan { try await settle(batch) }
/// }
/// ```
///
/// Ids come from ``TraceIdentifiers/current``: a tracer that propagates W3C ids (swift-otel's) gives 16 and 8
/// bytes; one that does not (the in-memory tracer's counters) announces nothing, and the report has no trace.
/// The announcement belongs to the calling task (see `FlightRecorder.withActiveTrace`).
public enum CrashTrace {
    /// Runs `operation` announced under the current span's ids, or unannounced when there is no span.
    nonisolated(nonsending) public static func withCurrentSpan<Value>(
        _ operation: nonisolated(nonsending) () async throws -> Value
    ) async rethrows -> Value {
        guard let context = ServiceContext.current else { return try await operation() }
        return try await withSpan(of: context, injectedBy: InstrumentationSystem.instrument, operation)
    }

    /// Runs `operation` announced under the ids of `context`'s span, as `instrument` injects them.
    ///
    /// Every request of a traced service comes here: the ids are read from what the instrument injects, with no
    /// dictionary and no string of their own.
    nonisolated(nonsending) package static func withSpan<Value>(
        of context: ServiceContext, injectedBy instrument: any Instrument,
        _ operation: nonisolated(nonsending) () async throws -> Value
    ) async rethrows -> Value {
        guard let ids = IdentifierCarrier(context, instrument: instrument).words else { return try await operation() }
        return try await FlightRecorder.withActiveTrace(traceID: ids.traceID, spanID: ids.spanID, operation)
    }
}

extension TraceIdentifiers {
    /// The trace id's 16 bytes, when it is 32 hex digits (a W3C trace id).
    package var traceIDBytes: [UInt8]? {
        W3CIdentifiers.words(hex: traceID, count: 2).map { W3CIdentifiers.bytes($0.0) + W3CIdentifiers.bytes($0.1) }
    }
    /// The span id's 8 bytes, when it is 16 hex digits (a W3C span id).
    package var spanIDBytes: [UInt8]? {
        W3CIdentifiers.words(hex: spanID, count: 1).map { W3CIdentifiers.bytes($0.1) }
    }
}
#endif
