// The server `Benchmarks/http-errors` loads with wrk: one route, `/limited`, answering 429 in one of three ways,
// so the framework's price is read beside the server framework's own error answer in the same run.
//
//     HTTPErrorServer hummingbird|vapor own|own-message|adapter|code|shape|decided PORT
//
//   own      the route throws the framework's own error (Hummingbird's `HTTPError(.tooManyRequests)`, Vapor's
//            `Abort(.tooManyRequests)`), answered by the framework itself (Vapor's `ErrorMiddleware`): the baseline
//   own-message  the same, with the message the adapter's answer carries (`HTTPError(.tooManyRequests, message:)`,
//            `Abort(.tooManyRequests, reason:)`): the framework's own answer with a body, Hummingbird's
//            `{"error":{"message":…}}`
//   adapter  the same error, decided and answered by the framework's problem details middleware
//   code     the route throws a registered code (`bench/RATE_LIMITED`, 429, Retry-After 2 s), decided and
//            answered by the middleware
//   shape    the same error, answered by a hand-written middleware with the bytes the adapter answers with (status,
//            header fields, problem+json body), made anew for each request but decided by nothing: what the answer's
//            shape costs the server framework, the floor of any problem details answer
//   decided  as `shape`, after the pipeline has decided the error (`pipeline.decide`): the decision's price
//
// Logging and the pipeline are `ErrorServerSupport`'s, as for the gRPC server; metrics go to swift-metrics' no-op
// backend.
#if Hummingbird && Vapor
import Axiom
import AxiomHummingbird
import AxiomVapor
import ErrorServerSupport
import Foundation
import Hummingbird
import Vapor

let arguments = CommandLine.arguments
guard arguments.count == 4, ["hummingbird", "vapor"].contains(arguments[1]),
    ErrorServerSupport.httpModes.contains(arguments[2]), let port = Int(arguments[3])
else {
    FileHandle.standardError.write(
        Data("usage: HTTPErrorServer hummingbird|vapor own|own-message|adapter|code|shape|decided PORT\n".utf8))
    exit(2)
}
let mode = arguments[2]
ErrorServerSupport.bootstrapLogging()
let pipeline = try ErrorServerSupport.pipeline()

/// Tells the script the server is up: a line on stdout, flushed (a pipe's stdout is not line-buffered).
@Sendable func listening() {
    FileHandle.standardOutput.write(Data("listening \(port)\n".utf8))
}

/// The error `/limited` throws: the framework's own, or the registered code.
let limited: @Sendable (_ own: any Error) -> any Error = { own in
    mode == "code" ? ErrorServerSupport.rateLimited : own
}

/// The adapters' answer to `/limited`'s error, byte for byte, for `shape` and `decided`.
let shapeBody =
    #"{"code":"axiom.http/429","detail":"Too many requests. Try again later.","instance":"/limited","status":429,"title":"Too many requests","type":"about:blank"}"#

/// Whether the hand-written middleware decides the error first (`decided`), read once rather than per request.
let decidesFirst = mode == "decided"

/// For `decided`: the pipeline decides the error first, as the adapters do.
@Sendable func decideIfAsked(_ error: any Error) {
    if decidesFirst { _ = try? pipeline.decide(error, operation: "GET /limited") }
}

/// `shape` and `decided` in Hummingbird's terms.
struct HummingbirdShape<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Hummingbird.Request, context: Context,
        next: (Hummingbird.Request, Context) async throws -> Hummingbird.Response
    ) async throws -> Hummingbird.Response {
        do {
            return try await next(request, context)
        } catch {
            decideIfAsked(error)
            var buffer = ByteBufferAllocator().buffer(capacity: shapeBody.utf8.count)
            buffer.writeString(shapeBody)
            return Hummingbird.Response(
                status: .tooManyRequests,
                headers: [.contentType: "application/problem+json", .vary: "Accept-Language", .contentLanguage: "en"],
                body: ResponseBody(byteBuffer: buffer))
        }
    }
}

/// `shape` and `decided` in Vapor's terms.
struct VaporShape: AsyncMiddleware {
    func respond(to request: Vapor.Request, chainingTo next: any AsyncResponder) async throws -> Vapor.Response {
        do {
            return try await next.respond(to: request)
        } catch {
            decideIfAsked(error)
            return Vapor.Response(
                status: .tooManyRequests,
                headers: [
                    "Content-Type": "application/problem+json", "Vary": "Accept-Language", "Content-Language": "en",
                ],
                body: .init(string: shapeBody))
        }
    }
}

/// Whether the framework's own error answer is measured, with no middleware of the framework's.
let ownAnswer = mode.hasPrefix("own")
/// Whether a hand-written middleware answers (`shape`, `decided`).
let handWritten = mode == "shape" || mode == "decided"
if handWritten {
    // The identity of the frameworks' errors, which the adapters register, so `decided` decides the same error.
    _ = AxiomHummingbird.ProblemDetailsMiddleware<BasicRequestContext, FollowDescriptor>(pipeline: pipeline)
    _ = AxiomVapor.ProblemDetailsMiddleware(pipeline: pipeline)
}

if arguments[1] == "hummingbird" {
    let router = Hummingbird.Router()
    if handWritten {
        router.add(middleware: HummingbirdShape())
    } else if !ownAnswer {
        router.add(middleware: AxiomHummingbird.ProblemDetailsMiddleware(pipeline: pipeline))
    }
    router.get("limited") { _, _ -> String in
        throw limited(
            mode == "own-message"
                ? HTTPError(.tooManyRequests, message: ErrorServerSupport.message) : HTTPError(.tooManyRequests))
    }
    let app = Hummingbird.Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
        onServerRunning: { _ in listening() })
    try await app.runService()
} else {
    let app = try await Vapor.Application.make(.production)
    app.http.server.configuration.hostname = "127.0.0.1"
    app.http.server.configuration.port = port
    if handWritten {
        app.middleware.use(VaporShape())
    } else if !ownAnswer {
        app.middleware.use(AxiomVapor.ProblemDetailsMiddleware(pipeline: pipeline))
    }
    app.get("limited") { _ -> String in
        throw limited(
            mode == "own-message"
                ? Abort(.tooManyRequests, reason: ErrorServerSupport.message) : Abort(.tooManyRequests))
    }
    try app.server.start()
    listening()
    // Serves until the script terminates it.
    while true { try await Task.sleep(for: .seconds(3600)) }
}
#else
import Foundation

FileHandle.standardError.write(
    Data("HTTPErrorServer needs the Hummingbird and Vapor traits: --traits Hummingbird,Vapor\n".utf8))
exit(2)
#endif
