#if Vapor
import Axiom
@_exported import AxiomHTTP
import AxiomTracing
import Vapor

/// Decides every error a route throws through the application's pipeline and answers with RFC 9457 problem
/// details (`application/problem+json`): the Vapor 4 adapter over `ProblemResponder`.
///
/// Middleware added first is outermost, and a new `Application` already holds Vapor's `ErrorMiddleware`, so one
/// added with `use` at `.end` (the default) is inside it and answers first; Vapor's `TracingMiddleware` goes before
/// it (outside), so that the request's span is current when the error is decided and sees the final status:
///
/// ```swift
/// app.middleware = Middlewares()                        // or keep ErrorMiddleware: this one answers first
/// app.middleware.use(TracingMiddleware())               // Vapor's: the request's span, outside
/// app.middleware.use(ProblemDetailsMiddleware(pipeline: requests))
/// ```
///
/// How an error becomes an answer:
///
/// ```
///   route throws ──▶ pipeline.decide ──▶ handled ──────────────▶ problem details (status from the descriptor)
///                                   ├─▶ ignored ──────────────▶ problem details, the same; the pipeline's
///                                   │                           observers did not count it as a failure
///                                   ├─▶ recovered with a Response or another (Async)ResponseEncodable ──▶ that
///                                   │                           value's response
///                                   ├─▶ recovered with another value ──▶ problem details
///                                   └─▶ escalated (no layer above) ──▶ problem details of the translated error
/// ```
///
/// A route cannot be run again once its body may have been read, so the pipeline decides outside `run`: a retry
/// decision counts as a pass there, and the next handler decides. Give the middleware a terminal pipeline
/// (`escalatesTo: nil`) whose handlers name what the service expects, with `FollowDescriptor()` last. A recovery's
/// value that cannot be encoded into a response is answered as that failure, decided once more (its own recovery is
/// then sent only if it is a `Response`).
///
/// Vapor's `Abort` and `RouteNotFound` (a path no route matches) are `axiom.http/<status>`, with texts in the
/// client's language. Any other `AbortError` no catalog registers (a `DecodingError`, a `ValidationsError`) is
/// answered as `axiom/unknownError` with its own status.
///
/// The body never carries the error's own description: `title` and `detail` come from the registry's catalogs in the
/// language `Accept-Language` asks for (English when it asks for none the registry has), and a 5xx answer says only
/// the generic "something went wrong", whatever the code. `Retry-After` comes from the error's own Retry-After, or,
/// for 429 and 503, from the first wait of the descriptor's retry policy. The trace id is added when the request is
/// traced (Vapor's `TracingMiddleware` binds the request's span for the responders inside it). Every problem answer
/// carries `Vary: Accept-Language`.
///
/// The request's span gets `error.type` for every error that ends the request, and status error only for a 5xx
/// answer: OpenTelemetry's HTTP conventions leave a SERVER span's status unset for a 4xx. It also announces the
/// request's span to the crash reporter (`CrashTrace`), so a route that crashes the process leaves a report that
/// names the request's trace.
public struct ProblemDetailsMiddleware<Handlers: ErrorHandler>: AsyncMiddleware {
    /// The pipeline every error is decided through.
    public var pipeline: ErrorPipeline<Handlers> { answering.pipeline }
    /// Type URIs and statuses.
    public var configuration: ProblemDetailsConfiguration { answering.responder.configuration }
    /// The pipeline and the responder every answer is given by, made once: it keeps the texts of the answers it gave.
    let answering: PipelineResponder<Handlers>
    /// The events' names of the routes answered so far, kept by method and route.
    let operations = OperationNames()

    /// A middleware that decides through `pipeline`. Registers `axiom.http` in the pipeline's registry, with the
    /// identity of Vapor's `Abort` and `RouteNotFound` (`HTTPErrorDomain/code(of:)`).
    public init(pipeline: ErrorPipeline<Handlers>, configuration: ProblemDetailsConfiguration = .init()) {
        answering = PipelineResponder(pipeline: pipeline, configuration: configuration)
        // Only another source that took the framework's domain name can refuse it; Vapor's errors are then decided
        // as unknown errors, and answered with their own status all the same.
        let registry = pipeline.configuration.registry
        try? HTTPErrorDomain.register(Abort.self, in: registry) { Int($0.status.code) }
        try? HTTPErrorDomain.register(RouteNotFound.self, in: registry) { Int($0.status.code) }
    }

    /// Answers what the rest of the chain throws with problem details (or a recovery's response).
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await CrashTrace.withCurrentSpan { try await next.respond(to: request) }
        } catch {
            return await answer(error, request: request)
        }
    }

    /// The answer for an error the chain threw; the request's span's status as the type's discussion says.
    /// `encodingRecoveries` is false for the failure to encode a recovery's value, so that it is answered once.
    func answer(_ error: any Error, request: Request, encodingRecoveries: Bool = true) async -> Response {
        let (answer, code) = TracingInstrument.leavingStatusToCaller { traceID in
            decidedAnswer(error, request: request, encodingRecoveries: encodingRecoveries, traceID: traceID)
        }
        let response: Response
        switch answer {
        case .ready(let ready):
            response = ready
        case .encode(let encode):
            do {
                response = try await encode()
            } catch {
                return await self.answer(error, request: request, encodingRecoveries: false)
            }
        }
        if let code, response.status.code >= 500 { TracingInstrument.markFailed(code: code) }
        return response
    }

    /// A response, or a recovery's value still to be encoded (Vapor encodes asynchronously, after the decision).
    enum Answer {
        case ready(Response)
        case encode(() async throws -> Response)
    }

    /// The answer, and the code of the problem it details (nil when a recovery's value is the answer):
    /// ``ProblemResponder``'s decided answer in Vapor's types. `traceID`: the trace the request belongs to.
    func decidedAnswer(
        _ error: any Error, request: Request, encodingRecoveries: Bool, traceID: String?
    ) -> (Answer, ErrorCode?) {
        let languages = request.headers[.acceptLanguage]
        let path = request.url.path
        let method = request.method.rawValue
        // A matched route's name (its pattern) is kept; a request that matched none is named by its path, made each
        // time.
        let operation =
            if let route = request.route {
                operations.name(method: method, route: route) {
                    "\(method) /" + route.path.map(\.description).joined(separator: "/")
                }
            } else {
                "\(method) \(path)"
            }
        let decided = answering.answer(
            deciding: error, operation: operation,
            acceptLanguage: languages.count < 2 ? languages.first : languages.joined(separator: ", "), instance: path,
            traceId: traceID,
            ownStatus: (error as? any AbortError).map { Int($0.status.code) }
        ) { value -> Any? in
            if let response = value as? Response { return Answer.ready(response) }
            guard encodingRecoveries else { return nil }
            if let value = value as? any AsyncResponseEncodable {
                return Answer.encode { try await value.encodeResponse(for: request) }
            }
            if let value = value as? any ResponseEncodable {
                return Answer.encode { try await value.encodeResponse(for: request).get() }
            }
            return nil
        }
        switch consume decided {
        case .response(let answer):
            // What the closure above gave: an `Answer`.
            return (answer as! Answer, nil)
        case .problem(let answer, let escalated):
            if let escalated { TracingInstrument.markFailed(escalated) }
            let count = answer.bodyCount
            var body = ByteBufferAllocator().buffer(capacity: count)
            body.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { answer.writeBody(into: $0) }
            let response = Response(
                status: HTTPResponseStatus(statusCode: answer.response.status.code),
                headers: HTTPHeaders(answer.response.headerFields), body: .init(buffer: body))
            return (.ready(response), answer.code)
        }
    }
}

extension HTTPErrorDomain {
    /// The identity of Vapor's `Abort`: `axiom.http/<status code>`.
    public static func code(of error: Abort) -> ErrorCode { code(status: Int(error.status.code)) }
}

extension HTTPHeaders {
    /// Every field of `fields`, in order, each under its name as it was written (a field repeated stays repeated).
    init(_ fields: HTTPFields) {
        self.init(fields.map { ($0.name.rawName, $0.value) })
    }
}
#endif
