// The server `Benchmarks/http-errors` loads with wrk: one route, `/limited`, answering 429 in one of three ways,
// so the framework's price is read beside the server framework's own error answer in the same run.
//
//     HTTPErrorServer hummingbird|vapor own|own-message|adapter|code PORT
//
//   own      the route throws the framework's own error (Hummingbird's `HTTPError(.tooManyRequests)`, Vapor's
//            `Abort(.tooManyRequests)`), answered by the framework itself (Vapor's `ErrorMiddleware`): the baseline
//   own-message  the same, with the message the adapter's answer carries (`HTTPError(.tooManyRequests, message:)`,
//            `Abort(.tooManyRequests, reason:)`): the framework's own answer with a body, Hummingbird's
//            `{"error":{"message":…}}`
//   adapter  the same error, decided and answered by the framework's problem details middleware
//   code     the route throws a registered code (`bench/RATE_LIMITED`, 429, Retry-After 2 s), decided and
//            answered by the middleware
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
    ErrorServerSupport.modes.contains(arguments[2]), let port = Int(arguments[3])
else {
    FileHandle.standardError.write(
        Data("usage: HTTPErrorServer hummingbird|vapor own|own-message|adapter|code PORT\n".utf8))
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

if arguments[1] == "hummingbird" {
    let router = Hummingbird.Router()
    if !mode.hasPrefix("own") { router.add(middleware: AxiomHummingbird.ProblemDetailsMiddleware(pipeline: pipeline)) }
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
    if !mode.hasPrefix("own") { app.middleware.use(AxiomVapor.ProblemDetailsMiddleware(pipeline: pipeline)) }
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
