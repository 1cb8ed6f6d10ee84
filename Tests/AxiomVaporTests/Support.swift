#if Vapor
import AsyncHTTPClient
import Axiom
import AxiomHTTP
import AxiomShopFixture
import Foundation
import InMemoryTracing
import Testing
import Tracing
import Vapor

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a real Vapor application, set up by `configure`, on a free loopback port while `body` runs, then shuts it
/// down (its server's shutdown is bounded by the server's own timeout).
func withServer<Result: Sendable>(
    _ configure: (Application) throws -> Void, _ body: (Int) async throws -> Result
) async throws -> Result {
    var logger = Logger(label: "axiom.vapor.tests")
    logger.logLevel = .warning
    let app = try await Application.make(.testing, logger: logger)
    do {
        try configure(app)
        try await app.asyncBoot()
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        guard let port = app.http.server.shared.localAddress?.port, port > 0 else {
            throw TestFailure("the server did not start")
        }
        let result = try await body(port)
        await app.server.shutdown()
        try await app.asyncShutdown()
        return result
    } catch {
        await app.server.shutdown()
        try? await app.asyncShutdown()
        throw error
    }
}

/// What a request to the test server answered: the head as swift-http-types has it (what `ProblemReader` reads),
/// and the body's bytes.
struct Answer: Sendable {
    var head: HTTPResponse
    var body: Data

    /// The status code.
    var status: Int { head.status.code }

    /// The value of the field `name`, its lines joined.
    func field(_ name: HTTPField.Name) -> String? { head.headerFields[name] }

    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(text)")
        }
        return object
    }
}

/// GET `path` on the loopback server with AsyncHTTPClient, bounded to 10 seconds; `acceptLanguage` as the request's
/// `Accept-Language`.
func get(_ port: Int, _ path: String, acceptLanguage: String? = nil) async throws -> Answer {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
    if let acceptLanguage { request.headers.add(name: "Accept-Language", value: acceptLanguage) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    var fields = HTTPFields()
    for header in response.headers {
        fields.append(HTTPField(name: try #require(HTTPField.Name(header.name)), value: header.value))
    }
    let body = try await response.body.collect(upTo: 1 << 20)
    return Answer(
        head: HTTPResponse(status: .init(code: Int(response.status.code)), headerFields: fields),
        body: Data(body.readableBytesView))
}

/// Runs the rest of the chain with `tracer` as the task's tracer: a tracer of the test's own instead of one
/// bootstrapped for the whole process (which can be bootstrapped only once, and other suites may). Vapor runs each
/// async middleware in a task made inside the one before, so the inner ones inherit it.
struct ScopedTracer: AsyncMiddleware {
    let tracer: InMemoryTracer

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        try await withTracer(tracer) { try await next.respond(to: request) }
    }
}

extension SpanAttributes {
    /// A string attribute's value.
    func string(_ key: String) -> String? {
        if case .string(let value)? = get(key) { return value }
        return nil
    }
}
#endif
