#if Hummingbird
import Axiom
@_exported import AxiomHTTP
import AxiomTracing
import Foundation
import Hummingbird

/// Decides every error a route throws through the application's pipeline and answers with RFC 9457 problem
/// details (`application/problem+json`).
///
/// ```swift
/// let router = Router()
/// router.add(middleware: TracingMiddleware())   // Hummingbird's: they see the final status,
/// router.add(middleware: MetricsMiddleware())   // so they go first (outside)
/// router.add(middleware: ProblemDetailsMiddleware(pipeline: requests))
/// ```
///
/// How an error becomes an answer:
///
/// ```
///   route throws ──▶ pipeline.decide ──▶ handled ──────────────▶ problem details (status from the descriptor)
///                                   ├─▶ ignored ──────────────▶ problem details, the same; the pipeline's
///                                   │                           observers did not count it as a failure
///                                   ├─▶ recovered with a Response or ResponseGenerator ──▶ that response
///                                   ├─▶ recovered with another value ──▶ problem details
///                                   └─▶ escalated (no layer above) ──▶ problem details of the translated error
/// ```
///
/// A route cannot be run again once its body may have been read, so the pipeline decides outside `run`: a
/// retry decision counts as a pass there, and the next handler decides. Give the middleware a terminal pipeline
/// (`escalatesTo: nil`) whose handlers name what the service expects, with `FollowDescriptor()` last.
///
/// The body never carries the error's own description: `title` and `detail` come from the registry's catalogs
/// in the language `Accept-Language` asks for (English when it asks for none the registry has), and a 5xx answer
/// says only the generic "something went wrong", whatever the code. `Retry-After` comes from the error's own
/// Retry-After, or, for 429 and 503, from the first wait of the descriptor's retry policy. The trace id is added
/// when the request is traced. Every problem answer carries `Vary: Accept-Language`.
///
/// The request's span gets `error.type` for every error that ends the request, and status error only for a 5xx
/// answer: OpenTelemetry's HTTP conventions leave a SERVER span's status unset for a 4xx.
///
/// It also announces the request's span to the crash reporter (`CrashTrace`), so a route that crashes the process
/// leaves a report that names the request's trace.
public struct ProblemDetailsMiddleware<Context: RequestContext, Handlers: ErrorHandler>: RouterMiddleware {
    /// The pipeline every error is decided through.
    public var pipeline: ErrorPipeline<Handlers> { answering.pipeline }
    /// Type URIs and statuses.
    public var configuration: ProblemDetailsConfiguration { answering.responder.configuration }
    /// The pipeline and the responder every answer is given by, made once: it keeps the texts of the answers it gave.
    let answering: PipelineResponder<Handlers>
    /// The events' names of the routes answered so far, kept by method and endpoint path.
    let operations = OperationNames()

    /// A middleware that decides through `pipeline`. Registers `axiom.http` in the pipeline's registry, with the
    /// identity of Hummingbird's `HTTPError`s (`HTTPErrorDomain/code(of:)`).
    public init(pipeline: ErrorPipeline<Handlers>, configuration: ProblemDetailsConfiguration = .init()) {
        answering = PipelineResponder(pipeline: pipeline, configuration: configuration)
        // Only another source that took the framework's domain name can refuse it; HTTPErrors are then decided
        // as unknown errors, and answered with their own status all the same.
        try? HTTPErrorDomain.register(HTTPError.self, in: pipeline.configuration.registry) { $0.status.code }
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await CrashTrace.withCurrentSpan { try await next(request, context) }
        } catch {
            return answer(error, request: request, context: context)
        }
    }

    /// The answer for an error a route threw; the request's span's status as the type's discussion says.
    func answer(_ error: any Error, request: Request, context: Context) -> Response {
        let (response, failed) = TracingInstrument.leavingStatusToCaller { traceID in
            decidedAnswer(error, request: request, context: context, traceID: traceID)
        }
        if let failed { TracingInstrument.markFailed(code: failed) }
        return response
    }

    /// The answer, and the code of the problem it details when that is a server failure (a 5xx answer, which marks
    /// the request's span failed; nil for a 4xx, or when a recovery's own response is the answer):
    /// ``ProblemResponder``'s decided answer in Hummingbird's types. `traceID`: the trace the request belongs to.
    func decidedAnswer(
        _ error: any Error, request: Request, context: Context, traceID: String?
    ) -> (Response, failed: ErrorCode?) {
        let path = request.uri.path
        let method = request.method.rawValue
        // A route's name is kept (Hummingbird's router names a request that matched none `NotFound`); a request
        // that reached no router is named by its path, made each time.
        let operation =
            if let route = context.endpointPath {
                operations.name(method: method, pattern: route) { "\(method) \(route)" }
            } else {
                "\(method) \(path)"
            }
        let decided = answering.answer(
            deciding: error, operation: operation,
            acceptLanguage: request.headers[.acceptLanguage], instance: path,
            traceId: traceID, ownStatus: (error as? any HTTPResponseError)?.status.code
        ) { value -> Any? in
            if let response = value as? Response { return response }
            return try? (value as? any ResponseGenerator)?.response(from: request, context: context)
        }
        switch consume decided {
        case .response(let response):
            // What the closure above gave: a `Response`.
            return (response as! Response, nil)
        case .problem(let answer, let escalated):
            if let escalated { TracingInstrument.markFailed(escalated) }
            let body = Self.buffer(answer)
            // The head comes with its Content-Length: Hummingbird would otherwise add it to the shared fields, a
            // copy of them for each answer.
            let head = answer.response(contentLength: body.readableBytes)
            let status = head.status
            let response = Response(status: status, headers: head.headerFields, body: ResponseBody(byteBuffer: body))
            return (response, status.code >= 500 ? answer.code : nil)
        }
    }
}

extension ProblemDetailsMiddleware {
    /// The body, written straight into a buffer of its size.
    static func buffer(_ answer: ProblemAnswerParts) -> ByteBuffer {
        let count = answer.bodyCount
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { answer.writeBody(into: $0) }
        return buffer
    }
}

extension HTTPErrorDomain {
    /// The identity of Hummingbird's `HTTPError`: `axiom.http/<status code>`.
    public static func code(of error: HTTPError) -> ErrorCode { code(status: Int(error.status.code)) }
}
#endif
