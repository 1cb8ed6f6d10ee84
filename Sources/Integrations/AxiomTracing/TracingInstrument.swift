#if Tracing
import AxiomCore
import Tracing

/// Sets the status of the span active around an operation from how its error finally ended: error for an error
/// that was handled (a default, or the terminal layer's end), nothing for one that was recovered or ignored, which
/// is no failure of the operation.
///
/// An escalation passes through: the next layer decides it, and its pipeline's instrument sets the status then. An
/// escalation that no layer decides reaches whoever catches it (`ProblemDetailsMiddleware` decides it through its
/// own pipeline). The span also gets the attribute `error.type` (`domain/code`) when its status becomes error, as
/// OpenTelemetry's conventions ask. A client span whose call a peer answered with an error gets `axiom.peer.code`
/// (the peer's `domain/code`) and, when the peer named one, `axiom.peer.trace_id` (the trace of its answer).
///
/// Set it as a configuration's `PipelineConfiguration/instrument`; with ``TracingErrorObserver`` among the
/// observers every decided error is an event on the same span.
public struct TracingInstrument: PipelineInstrument {
    private let tracer: (any Tracer)?

    /// An instrument for `tracer` (nil: the bootstrapped tracer, looked up when it is needed).
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    public func run<Value: Sendable>(
        layer: Layer, operation: String, _ body: () async throws(EscalatedError) -> Outcome<Value>
    ) async throws(EscalatedError) -> Outcome<Value> {
        let outcome = try await body()
        if case .handled(let event) = outcome { Self.markFailed(event, tracer: tracer) }
        return outcome
    }

    public func decide(
        layer: Layer, operation: String, _ body: () throws(EscalatedError) -> Outcome<any Sendable>
    ) throws(EscalatedError) -> Outcome<any Sendable> {
        let outcome = try body()
        if case .handled(let event) = outcome { Self.markFailed(event, tracer: tracer) }
        return outcome
    }

    /// Marks the span active in this task (as `tracer`, nil: the bootstrapped one, knows it) as failed with
    /// `event`'s code (for a caller that ends an escalation no layer decided): its `error.type` attribute, and its
    /// status error unless the caller sets the status itself (``leavingStatusToCaller(_:)``).
    package static func markFailed(_ event: ErrorEvent, tracer: (any Tracer)? = nil) {
        mark(event.code, settingStatus: !callerSetsStatus, tracer: tracer)
    }

    /// Runs `body` with handled errors recording `error.type` on the active span but leaving its status to the
    /// caller, which knows better: an HTTP server's middleware sets a SERVER span's status from the response it
    /// answers with, error for a 5xx and unset for a 4xx, as OpenTelemetry's HTTP conventions ask (a 4xx is the
    /// client's failure, not the server's).
    ///
    /// `body` is given the trace id of the task's span (``TraceIdentifiers/current``'s), which an answer names:
    /// read from the same look-up of the task's context, where reading it apart would look the context up again.
    package static func leavingStatusToCaller<Result>(
        _ body: (_ traceID: String?) throws -> Result
    ) rethrows -> Result {
        // Without a context there is no active span to mark (`activeSpan` looks spans up by it) and no trace:
        // nothing to leave to the caller, and no task-local to push for every answer of an untraced service.
        guard let context = ServiceContext.current else { return try body(nil) }
        let traceID = TraceIdentifiers.of(context)?.traceID
        return try $callerSetsStatus.withValue(true) { try body(traceID) }
    }

    /// Marks the span active in this task as failed with `code`, status and `error.type`, whatever the caller set.
    package static func markFailed(code: ErrorCode, tracer: (any Tracer)? = nil) {
        mark(code, settingStatus: true, tracer: tracer)
    }

    /// Records on the span active in this task (as `tracer`, nil: the bootstrapped one, knows it) the error a peer
    /// answered a call with: `axiom.peer.code` (its `domain/code`) and, when the peer named it, `axiom.peer.trace_id`
    /// (the trace its answer belongs to; the caller's own when the peer continued the caller's `traceparent`). The
    /// span's status is left alone: the caller's pipeline decides whether the peer's error fails the operation.
    package static func recordPeerError(code: ErrorCode, traceId: String?, tracer: (any Tracer)? = nil) {
        guard let span = activeSpan(tracer), span.isRecording else { return }
        span.attributes[peerCodeAttribute] = code.description
        if let traceId { span.attributes[peerTraceIdAttribute] = traceId }
    }

    /// The span attribute naming the code of a peer's error (its `domain/code`), recorded on the active span when the
    /// HTTP or gRPC client integration reads a peer's error answer.
    package static let peerCodeAttribute = "axiom.peer.code"
    /// The span attribute naming the trace of a peer's error answer, recorded with ``peerCodeAttribute`` when the
    /// peer named its trace.
    package static let peerTraceIdAttribute = "axiom.peer.trace_id"

    /// `error.type` on the active span, and its status error when `settingStatus`.
    private static func mark(_ code: ErrorCode, settingStatus: Bool, tracer: (any Tracer)?) {
        guard let span = activeSpan(tracer), span.isRecording else { return }
        span.attributes["error.type"] = code.description
        if settingStatus { span.setStatus(SpanStatus(code: .error, message: code.description)) }
    }

    @TaskLocal private static var callerSetsStatus = false
}
#endif
