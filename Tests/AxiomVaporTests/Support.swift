#if Vapor
import AsyncHTTPClient
import Axiom
import AxiomHTTP
import Foundation
import InMemoryTracing
import Testing
import Tracing
import Vapor

/// The service's catalog: a rate limit with a retry policy and its own status, a validation error with its own
/// status, a storage failure (a 5xx) and a sold-out article, each with English and Turkish texts.
let shop = BuiltinDomain(
    name: "shop",
    codes: [
        shopCode(
            "RATE_LIMITED", .network, 429, retry: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(30)),
            en: ("Slow down", "Too many requests. Try again later."),
            tr: ("Yavaşlayın", "Çok fazla istek. Daha sonra yeniden deneyin.")),
        shopCode(
            "INVALID_QUANTITY", .validation, 422, en: ("Check the quantity", "The quantity must be between 1 and 99."),
            tr: ("Miktarı kontrol edin", "Miktar 1 ile 99 arasında olmalı.")),
        shopCode(
            "LEDGER_DOWN", .storage, nil, en: ("Ledger down", "The ledger at db.internal:5432 is down."),
            tr: ("Defter çalışmıyor", "db.internal:5432 adresindeki defter çalışmıyor.")),
        shopCode(
            "SOLD_OUT", .state, nil, en: ("Sold out", "This article is sold out."), tr: ("Tükendi", "Bu ürün tükendi.")),
    ])

/// A code of the shop's catalog: a rate limit is recovered (retried), every other code handled.
func shopCode(
    _ name: String, _ category: ErrorCategory, _ status: Int?, retry: RetryPolicy? = nil,
    en: (title: String, detail: String), tr: (title: String, detail: String)
) -> CodeDefinition {
    CodeDefinition(
        "shop", name, category: category, severity: category == .storage ? .error : .warning,
        disposition: retry == nil ? .handle : .recover, retry: retry, httpStatus: status,
        texts: ["en": .init(title: en.title, message: en.detail), "tr": .init(title: tr.title, message: tr.detail)])
}

/// A registry with the shop's catalog.
func shopRegistry() throws -> ErrorRegistry {
    let registry = ErrorRegistry()
    try registry.register(shop.catalog)
    return registry
}

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
