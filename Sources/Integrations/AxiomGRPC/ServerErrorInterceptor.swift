#if GRPC
import Axiom
import AxiomHTTP
import AxiomTracing
import GRPCCore
import GRPCProtobuf
import Synchronization
import Tracing

/// Decides every error a gRPC handler throws through the application's pipeline and answers with a gRPC status
/// from the error's descriptor and `google.rpc.Status` details (AIP-193), so that the error crosses the call with
/// its identity; ``ClientErrorInterceptor`` reads it back on the other side.
///
/// ```swift
/// let server = GRPCServer(
///     transport: transport, services: [orders],
///     interceptors: [ServerErrorInterceptor(pipeline: requests)])
/// ```
///
/// How an error becomes an answer: `ProblemResponder`'s decided answer, the path every server adapter takes, in
/// gRPC's terms:
///
/// ```
///   handler throws ──▶ pipeline.decide ──▶ handled, ignored, or recovered with a value that is no response
///                                       │       ──▶ RPCError: code from the HTTP status (the guide's table),
///                                       │           message = the detail in the caller's language,
///                                       │           details: ErrorInfo (reason = the code in UPPER_SNAKE_CASE,
///                                       │           domain, metadata code, status and traceId), RetryInfo (the
///                                       │           wait, when there is one),
///                                       │           LocalizedMessage (the language, the detail)
///                                       ├─▶ recovered with a response or an output message ──▶ that response
///                                       └─▶ escalated (no layer above) ──▶ the RPCError of the translated error
/// ```
///
/// The `ErrorInfo` follows AIP-193, so that any gRPC client reads it: its `reason` is the code in UPPER_SNAKE_CASE
/// (`outOfStock` is `OUT_OF_STOCK`), its `domain` the code's domain, and its
/// metadata carries the code as written (`code`), the HTTP status (`status`) and the trace id (`traceId`), from which
/// ``GRPCStatusReader`` gives the caller back the exact identity.
///
/// The status the responder chooses (an override, the descriptor's `httpStatus`, its category's status) gives the
/// gRPC code through the table of the guide "Across a gRPC call". The message and the `LocalizedMessage` come from the registry's catalogs in
/// the language the request's `accept-language` metadata asks for (English when it asks for none the registry has),
/// never from the error's own description; an answer the table makes a 5xx says only the generic "something went
/// wrong". An error no catalog registers is answered as `axiom/unknownError`, `internalError`. An `RPCError` (one a
/// handler threw to answer with a code, or the transport's) is `axiom.http/<status>` of its code's status, as for
/// the HTTP adapters' own status errors: decided by that status's fate (a client error is handled at warning, not
/// logged as a failure), answered with its code kept and the texts of its status (`resourceExhausted`: "Too many
/// requests. Try again later."), and an `ErrorInfo` of domain `axiom.http` and reason `CODE_<status>`. One that carries a
/// peer's error as its cause (a client's call relayed) is that peer's error. Errors a streaming handler throws after its first message are answered the same way,
/// except that a recovery's value cannot replace a response already started: it is answered with the problem too.
/// The operation of the pipeline's events is the RPC's full method name (`shop.Orders/Get`).
///
/// Traces: when no span is active around it (no tracing interceptor outside it), it extracts the caller's trace
/// context from the request's metadata (W3C `traceparent`, or what the bootstrapped instrument propagates) and
/// runs the handler under a SERVER span named the full method, child of the caller's, so the answer's trace id
/// is the caller's trace. With no instrument (none bootstrapped, none bound to the task with `withTracer`), the
/// handler runs in the current context as it is, and no span is started. The span gets `error.type` for every
/// error that ends the call and `rpc.grpc.status_code`, and status error only for `unknown`, `deadlineExceeded`,
/// `unimplemented`, `internalError`, `unavailable` and `dataLoss`, as OpenTelemetry's gRPC conventions ask. The
/// span ends when the response has been written or the error answered; a call whose caller left before its response
/// started (grpc-swift then never writes it) ends when the response is dropped, with status code `cancelled` when
/// the caller cancelled it, so no span of a call stays open. A streaming response that fails once the call is
/// cancelled (its caller left, or its deadline passed) fails because nobody reads it: it is decided as a
/// `CancellationError` (ignored, as the core decides every cancellation) and the span gets status code `cancelled`,
/// not the server's failure; so does a response written whole after its call was cancelled. The handler runs
/// announced to the crash reporter under the span (`CrashTrace`).
public struct ServerErrorInterceptor<Handlers: ErrorHandler>: ServerInterceptor {
    /// The pipeline every error is decided through.
    package var pipeline: ErrorPipeline<Handlers> { answering.pipeline }
    /// Type URIs and statuses, as for `ProblemResponder`.
    package var configuration: ProblemDetailsConfiguration { answering.responder.configuration }
    /// The pipeline and the responder every answer is given by, made once: it keeps the texts of the answers it gave.
    let answering: PipelineResponder<Handlers>

    /// An interceptor that decides through `pipeline`. Registers the domain `axiom.http` in the pipeline's registry
    /// and teaches it the identity of `RPCError`, as ``ClientErrorInterceptor`` does: a handler's own `RPCError` is
    /// `axiom.http/<status>` of its code's status, decided by that code's fate (a client error at warning) and
    /// answered with its texts, keeping its own gRPC code.
    public init(pipeline: ErrorPipeline<Handlers>, configuration: ProblemDetailsConfiguration = .init()) {
        answering = PipelineResponder(pipeline: pipeline, configuration: configuration)
        let registry = pipeline.configuration.registry
        try? HTTPErrorDomain.register(in: registry)
        registry.registerIdentity(of: RPCError.self, identity: ClientErrorInterceptor.identity(of:))
    }

    /// Runs the handler under the caller's trace and answers every error it throws as the type's discussion says.
    public func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>, context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        // The full method name is made from its parts at each read: read once, it names the span, the operation
        // and the answer's instance.
        let method = context.descriptor.fullyQualifiedMethod
        let trace = Self.traceContext(request.metadata, method: context.descriptor, named: method)
        let span = trace.span.map { CallSpan($0, cancellation: context.cancellation) }
        let call = Call(metadata: request.metadata, method: method, span: span, spanIsOutside: trace.spanIsOutside)
        let serviceContext = trace.context
        return try await Self.within(serviceContext) {
            let response: StreamingServerResponse<Output>
            do {
                response = try await CrashTrace.withCurrentSpan { try await next(request, context) }
            } catch {
                return try finish(span) { try answer(error, call: call) }
            }
            guard case .success(var contents) = response.accepted else {
                // A handler that rejected the call with an RPCError of its own: decided like any other error.
                guard case .failure(let rejection) = response.accepted else { return response }
                return try finish(span) { try answer(rejection, call: call) }
            }
            let producer = contents.producer
            let cancellation = context.cancellation
            contents.producer = { writer in
                try await Self.within(serviceContext) {
                    do {
                        let trailers = try await CrashTrace.withCurrentSpan { try await producer(writer) }
                        // Written whole, though a caller that cancelled may not have read it all.
                        span?.end(statusCode: cancellation.isCancelled ? Int64(RPCError.Code.cancelled.rawValue) : 0)
                        return trailers
                    } catch {
                        // Once the call is cancelled (its caller left, or its deadline passed), a write fails because
                        // nobody reads: that is the cancellation, decided as the core decides every cancellation,
                        // not the server's failure, and there is nobody to answer.
                        if cancellation.isCancelled {
                            _ = try? pipeline.decide(CancellationError(), operation: method)
                            span?.end(statusCode: Int64(RPCError.Code.cancelled.rawValue))
                            throw RPCError(code: .cancelled, message: "The call was cancelled.")
                        }
                        let failure = problem(for: error, call: call)
                        span?.end(statusCode: nil)
                        throw failure
                    }
                }
            }
            return StreamingServerResponse(accepted: .success(contents))
        }
    }

    /// Ends `span` (if this interceptor started it) once `body` has answered.
    private func finish<Output>(
        _ span: CallSpan?, _ body: () throws -> StreamingServerResponse<Output>
    ) throws -> StreamingServerResponse<Output> {
        defer { span?.end(statusCode: nil) }
        return try body()
    }

    /// The answer for an error `next` threw: a recovery's response, or the problem thrown as an `RPCError`.
    func answer<Output: Sendable>(
        _ error: any Error, call: Call
    ) throws(RPCError) -> StreamingServerResponse<Output> {
        let decided = decide(error, call: call) { value -> Any? in
            if let response = value as? StreamingServerResponse<Output> { return response }
            if let response = value as? ServerResponse<Output> { return StreamingServerResponse(single: response) }
            if let message = value as? Output {
                return StreamingServerResponse(single: ServerResponse(message: message))
            }
            return nil
        }
        switch consume decided {
        // What the closure above gave: a `StreamingServerResponse<Output>`.
        case .response(let response): return response as! StreamingServerResponse<Output>
        case .problem(let answer, let escalated): throw status(answer, escalated: escalated, error: error, call: call)
        }
    }

    /// The `RPCError` for an error thrown once the response has started: whatever a recovery's value, the problem.
    func problem(for error: any Error, call: Call) -> RPCError {
        switch decide(error, call: call, response: { _ in nil }) {
        case .problem(let answer, let escalated): return status(answer, escalated: escalated, error: error, call: call)
        case .response: preconditionFailure("a response where the closure gave none")
        }
    }

    /// ``ProblemResponder``'s decided answer, with the span's status left to ``status(_:escalated:error:call:)``.
    private func decide(
        _ error: any Error, call: Call, response: (any Sendable) -> Any?
    ) -> DecidedAnswer {
        TracingInstrument.leavingStatusToCaller { traceID in
            answering.answer(
                deciding: error, operation: call.method,
                acceptLanguage: call.metadata[stringValues: "accept-language"].first(where: { _ in true }),
                instance: "/" + call.method, traceId: traceID,
                ownStatus: (error as? RPCError).map { GRPCStatusTable.httpStatus(for: $0.code) }, response: response)
        }
    }

    /// The answer as an `RPCError` with `google.rpc.Status` details; the span marked as the type's discussion says.
    func status(_ answer: ProblemAnswerParts, escalated: ErrorEvent?, error: any Error, call: Call) -> RPCError {
        if let escalated { TracingInstrument.markFailed(escalated) }
        let problem = answer.problem
        var code = GRPCStatusTable.code(forHTTPStatus: problem.status)
        if let own = error as? RPCError, isUnknown(own, answered: answer, escalated: escalated != nil) {
            code = own.code
        }
        // The span this interceptor started is the active one; looked up only when a tracing interceptor outside
        // this one started it. Attributes are set only on a span that records them.
        if let span = call.span?.span ?? (call.spanIsOutside ? activeSpan() : nil), span.isRecording {
            span.attributes["rpc.grpc.status_code"] = Int64(code.rawValue)
            span.attributes["error.type"] = answer.code.description
        }
        if GRPCStatusTable.isServerFailure(code) { TracingInstrument.markFailed(code: answer.code) }
        let bytes = answer.statusBytes(code: code, traceId: problem.traceId)
        return RPCError(
            code: code, message: problem.detail,
            metadata: bytes.isEmpty ? [:] : [GRPCStatusReader.detailsKey: .binary(bytes)])
    }

    /// Whether `error` is an `RPCError` the registry does not know: unregistered, or identified only by the status of
    /// its own code (as ``ClientErrorInterceptor`` teaches the registry). Read from the answer the decision gave
    /// (its code is the error's, and its public code the unknown one when the registry does not know it), so the
    /// error is not resolved a second time; but for an escalated error, whose answer is the translated error's.
    private func isUnknown(_ error: RPCError, answered answer: ProblemAnswerParts, escalated: Bool) -> Bool {
        let ownStatusCode = HTTPErrorDomain.code(status: GRPCStatusTable.httpStatus(for: error.code))
        if escalated {
            let (identity, descriptor) = pipeline.configuration.registry.resolve(error)
            return descriptor.code == ErrorCatalog.unknownCode || identity.code == ownStatusCode
        }
        return answer.problem.code == ErrorCatalog.unknownCode.description || answer.code == ownStatusCode
    }

    /// What the answers to one call's errors read: its metadata, its method's full name, and the SERVER span this
    /// interceptor started for it (nil when a tracing interceptor outside this one started the call's span, or when
    /// there is no instrument).
    struct Call: Sendable {
        let metadata: Metadata
        let method: String
        let span: CallSpan?
        /// Whether a tracing interceptor outside this one started the call's span (the answer then looks it up).
        let spanIsOutside: Bool
    }

    /// The SERVER span this interceptor started for one call, ended once: by the response's producer when it has
    /// written the response, by the answer to an error, or, when grpc-swift never runs the producer (the caller left
    /// before the response started, so its headers could not be written), when the response is dropped. A call the
    /// caller cancelled gets `rpc.grpc.status_code` 1 (`cancelled`), which is not the server's failure.
    final class CallSpan: Sendable {
        let span: any Span
        let cancellation: ServerContext.RPCCancellationHandle
        private let ended = Atomic<Bool>(false)

        init(_ span: any Span, cancellation: ServerContext.RPCCancellationHandle) {
            self.span = span
            self.cancellation = cancellation
        }

        /// Ends the span, with `statusCode` when given (an error's answer sets its own); only the first call counts.
        func end(statusCode: Int64?) {
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            if let statusCode, span.isRecording { span.attributes["rpc.grpc.status_code"] = statusCode }
            span.end()
        }

        /// Ends the span of a call whose response was never produced.
        func endUnanswered() {
            end(statusCode: cancellation.isCancelled ? Int64(RPCError.Code.cancelled.rawValue) : nil)
        }

        deinit { endUnanswered() }
    }

    /// The context the handler runs in (nil: the current one, as it is): the current one when a span is active (a
    /// tracing interceptor outside this one made it), else the caller's, extracted from `metadata`, with a SERVER
    /// span of this call started in it, named `name`, the method's full name. Without an instrument (none
    /// bootstrapped, none bound to the task), there is no context to extract and no span to start: the current
    /// context stays, and no span, that would record nothing, is made for each call.
    package static func traceContext(
        _ metadata: Metadata, method: MethodDescriptor, named name: String
    ) -> (context: ServiceContext?, span: (any Span)?, spanIsOutside: Bool) {
        let current = ServiceContext.current
        if let current, TraceIdentifiers.hasSpan(current) { return (nil, nil, true) }
        let instrument = InstrumentationSystem.instrument
        if instrument is NoOpInstrument || instrument is NoOpTracer { return (nil, nil, false) }
        var context = current ?? .topLevel
        instrument.extract(metadata, into: &context, using: MetadataExtractor())
        // The instrument read above, when it is the tracer; else the tracer the system finds in it (a multiplex).
        let tracer = instrument as? any Tracer ?? InstrumentationSystem.tracer
        let span = tracer.startSpan(name, context: context, ofKind: .server)
        // A span that records nothing (the instrument is not a tracer, or the tracer did not sample the call) drops
        // them.
        if span.isRecording {
            span.attributes["rpc.system"] = "grpc"
            span.attributes["rpc.service"] = method.service.fullyQualifiedService
            span.attributes["rpc.method"] = method.method
        }
        return (span.context, span, false)
    }

    /// Runs `body` in `context`, or in the current context when it is nil.
    private static func within<Result>(
        _ context: ServiceContext?, _ body: () async throws -> Result
    ) async rethrows -> Result {
        guard let context else { return try await body() }
        return try await ServiceContext.withValue(context, operation: body)
    }
}
extension ProblemAnswerParts {
    /// The `google.rpc.Status` details of this answer, naming `traceId`: an `ErrorInfo` (AIP-193), a `RetryInfo`
    /// when there is a wait, and a `LocalizedMessage`.
    package func statusDetails(traceId: String?) -> [ErrorDetails] {
        let problem = problem
        let publicCode = ProblemReader.code(problem.code) ?? code
        var metadata = ["status": String(problem.status), GRPCStatusReader.codeKey: publicCode.code]
        if let traceId { metadata[GRPCStatusReader.traceIdKey] = traceId }
        var details: [ErrorDetails] = [
            .errorInfo(
                reason: GRPCStatusReader.reason(for: publicCode.code), domain: publicCode.domain, metadata: metadata)
        ]
        if let seconds = retryAfter {
            details.append(.retryInfo(delay: .seconds(seconds)))
        }
        details.append(
            .localizedMessage(
                locale: response.headerFields[.contentLanguage] ?? Localizer.baseLocale, message: problem.detail))
        return details
    }

    /// This answer's serialized `google.rpc.Status` with `code` and its details naming `traceId` (empty if it could
    /// not be serialized). Everything but the code and the trace id is the same for every answer with these texts,
    /// so it is serialized once and kept with them; an answer whose texts do not name its public code (one that
    /// could not be read back as a code) is serialized whole each time.
    package func statusBytes(code: RPCError.Code, traceId: String?) -> [UInt8] {
        if let template = kept({ KeptStatusDetails(self) }).template {
            return template.bytes(code: code, traceId: traceId)
        }
        let status = GoogleRPCStatus(code: code, message: problem.detail, details: statusDetails(traceId: traceId))
        return (try? status.serializedBytes()) ?? []
    }
}

/// The details template kept with an answer's texts, when they name the public code.
private final class KeptStatusDetails: Sendable {
    let template: StatusDetailsTemplate?

    init(_ answer: ProblemAnswerParts) {
        let problem = answer.problem
        template =
            ProblemReader.code(problem.code) == nil
            ? nil : StatusDetailsTemplate(message: problem.detail, details: answer.statusDetails(traceId: nil))
    }
}
#endif
