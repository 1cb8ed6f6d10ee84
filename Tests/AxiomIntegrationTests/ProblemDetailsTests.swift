#if Hummingbird && OpenTelemetry
import AsyncHTTPClient
import Axiom
import AxiomHummingbird
import AxiomShopFixture
import AxiomTesting
import AxiomTracing
import Foundation
import Hummingbird
import InMemoryTracing
import Testing
import Tracing

/// A real Hummingbird server on loopback, called by AsyncHTTPClient: every error a route throws is answered with
/// problem details decided through the application's pipeline.
@Suite("Problem details over HTTP", .timeLimit(.minutes(1)))
struct ProblemDetailsTests {
    static func router(
        registry: ErrorRegistry, configuration: ProblemDetailsConfiguration = .init()
    ) -> Router<BasicRequestContext> {
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: registry, observers: [TracingErrorObserver()], instrument: TracingInstrument())
        ) { FollowDescriptor() }
        let router = Router()
        router.add(middleware: TracingMiddleware())
        router.add(middleware: ProblemDetailsMiddleware(pipeline: pipeline, configuration: configuration))
        router.get("quantity") { _, _ -> String in
            throw DomainError(domain: "shop", code: "INVALID_QUANTITY", message: "quantity=0")
        }
        router.get("orders") { _, _ -> String in throw DomainError(domain: "shop", code: "NOT_SIGNED_IN") }
        router.get("pay") { _, _ -> String in
            throw DomainError(domain: "nwc", code: "RATE_LIMITED", message: "rate limited by the wallet")
        }
        router.get("pay-soon") { _, _ -> String in
            throw DomainError(domain: "nwc", code: "RATE_LIMITED", retryAfter: .milliseconds(6500))
        }
        router.get("card") { _, _ -> String in
            throw DomainError(
                domain: "shop", code: "CARD_DECLINED", message: "card 4111111111111111 declined, token=sk_live_abc123")
        }
        router.get("boom") { _, _ -> String in throw DatabaseDown() }
        router.get("fine") { _, _ -> String in "fine" }
        return router
    }

    @Test func aValidationErrorIsItsStatusTitleAndDetail() async throws {
        let registry = try makeServiceRegistry()
        let configuration = ProblemDetailsConfiguration(typeBase: "https://shop.example/problems/")
        try await withServer(Self.router(registry: registry, configuration: configuration)) { port in
            let answer = try await get(port, "/quantity")
            #expect(answer.status == 422)
            #expect(answer.headers["content-type"] == "application/problem+json")
            #expect(answer.headers["content-language"] == "en")
            let body = try answer.json()
            #expect(body["type"] as? String == "https://shop.example/problems/shop/INVALID_QUANTITY")
            #expect(body["title"] as? String == "Check the quantity")
            #expect(body["detail"] as? String == "The quantity must be between 1 and 99.")
            #expect(body["status"] as? Int == 422)
            #expect(body["instance"] as? String == "/quantity")
            #expect(body["code"] as? String == "shop/INVALID_QUANTITY")
            #expect(!answer.body.contains("quantity=0"))
            #expect(try await get(port, "/fine").body == "fine")
        }
    }

    @Test func anAuthErrorTakesItsCategorysStatus() async throws {
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            let answer = try await get(port, "/orders")
            #expect(answer.status == 401)
            #expect(try answer.json()["title"] as? String == "Sign-in required")
        }
    }

    @Test func aPluginsCodeCarriesItsStatusAndRetryAfter() async throws {
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            let answer = try await get(port, "/pay")
            #expect(answer.status == 429)
            #expect(answer.headers["retry-after"] == "60")
            let body = try answer.json()
            #expect(body["code"] as? String == "nwc/RATE_LIMITED")
            #expect(body["title"] as? String == "Too Many Requests")
            // The error's own Retry-After wins over the policy's first wait, rounded up to whole seconds.
            let soon = try await get(port, "/pay-soon")
            #expect(soon.headers["retry-after"] == "7")
        }
    }

    @Test func theLanguageComesFromAcceptLanguageWithQualities() async throws {
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            let turkish = try await get(port, "/pay", headers: [("Accept-Language", "de;q=0.9, tr-TR, en;q=0.5")])
            #expect(turkish.headers["content-language"] == "tr")
            let body = try turkish.json()
            #expect(body["title"] as? String == "Çok Fazla İstek")
            #expect(body["detail"] as? String == "Cüzdan istekleri sınırlıyor. Bir dakika sonra yeniden denenecek.")
            // A language the registry has no texts for, or one excluded with q=0, falls back to English.
            let excluded = try await get(port, "/pay", headers: [("Accept-Language", "tr;q=0, fr")])
            #expect(try excluded.json()["title"] as? String == "Too Many Requests")
        }
    }

    @Test func aSensitivePayloadNeverReachesTheBody() async throws {
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            let answer = try await get(port, "/card")
            #expect(answer.status == 402)
            #expect(try answer.json()["detail"] as? String == "The card was declined.")
            #expect(!answer.body.contains("4111") && !answer.body.contains("sk_live"))
        }
    }

    @Test func aServerErrorSaysOnlyTheGenericText() async throws {
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            let answer = try await get(port, "/boom", headers: [("Accept-Language", "tr")])
            #expect(answer.status == 500)
            let body = try answer.json()
            // No catalog registers DatabaseDown: the answer names the one generic identity, never the type, and
            // without a type base the problem type is about:blank.
            #expect(body["code"] as? String == "axiom/unknownError")
            #expect(body["type"] as? String == "about:blank")
            #expect(!answer.body.contains("DatabaseDown") && !answer.body.contains("swift/"))
            #expect(body["title"] as? String == "Bir şeyler ters gitti")
            #expect(body["detail"] as? String == "Bir şeyler ters gitti. Lütfen yeniden deneyin.")
            #expect(!answer.body.contains("hunter2") && !answer.body.contains("db"))
        }
    }

    @Test func hummingbirdsOwnErrorsAreProblemDetailsToo() async throws {
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            let answer = try await get(port, "/no-such-route")
            #expect(answer.status == 404)
            let body = try answer.json()
            #expect(body["code"] as? String == "axiom.http/404")
            #expect(body["title"] as? String == "Not found")
        }
    }

    /// The finished SERVER span of the request to `path` whose answer names `traceID`, waited for (bounded): the
    /// span ends when the response body is written.
    func finishedSpan(_ path: String, traceID: String) async throws -> FinishedInMemorySpan {
        var span: FinishedInMemorySpan?
        for _ in 0..<200 where span == nil {
            span = SharedTracer.finished(path).first { $0.traceID == traceID }
            if span == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        return try #require(span, "no finished span for \(path) in trace \(traceID)")
    }

    /// OpenTelemetry's HTTP conventions: a SERVER span's status stays unset for a 4xx (the client's failure) and is
    /// error for a 5xx; `error.type` names the code either way.
    @Test func aClientErrorLeavesTheServerSpanUnsetAndAServerErrorFailsIt() async throws {
        _ = SharedTracer.tracer
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            let answer = try await get(port, "/orders")
            let request = try await finishedSpan(
                "/orders", traceID: try #require(try answer.json()["traceId"] as? String))
            #expect(request.attributes.integer("http.response.status_code") == 401)
            #expect(request.status == nil)
            #expect(request.attributes.string("error.type") == "shop/NOT_SIGNED_IN")
            let event = try #require(request.events.first { $0.name == TracingErrorObserver.eventName })
            #expect(event.attributes.string("error.type") == "shop/NOT_SIGNED_IN")
            #expect(event.attributes.string("axiom.error.disposition") == "handle")

            let failed = try await get(port, "/boom")
            let server = try await finishedSpan("/boom", traceID: try #require(try failed.json()["traceId"] as? String))
            #expect(server.attributes.integer("http.response.status_code") == 500)
            #expect(server.status?.code == .error)
            // The span, unlike the answer, names what the error really was.
            #expect(server.attributes.string("error.type")?.hasSuffix("DatabaseDown") == true)
        }
    }

    /// Every problem answer's texts were chosen by `Accept-Language`, so it says so: a shared cache keeps one
    /// answer per language instead of serving the first language to everyone (a 404 is cacheable by default).
    @Test func everyNegotiatedAnswerVariesOnAcceptLanguage() async throws {
        let registry = try makeServiceRegistry()
        try await withServer(Self.router(registry: registry)) { port in
            for path in ["/no-such-route", "/pay", "/boom", "/quantity"] {
                let answer = try await get(port, path, headers: [("Accept-Language", "tr")])
                #expect(answer.headers["vary"] == "Accept-Language", "\(path)")
            }
            #expect(try await get(port, "/fine").headers["vary"] == nil)
        }
    }

    /// A handler's fallback that is Hummingbird's own `Response`, or a `ResponseGenerator`, is the answer as it is;
    /// any other value recovers the error for the pipeline, and the client still gets the error's problem details.
    @Test func aRecoveredResponseOrGeneratorIsSentAsItIs() async throws {
        struct Cached: Sendable { let count: Int }
        let registry = try makeServiceRegistry()
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil, configuration: PipelineConfiguration(registry: registry)
        ) {
            Recover(
                .code(ErrorCode("shop", "INVALID_QUANTITY")),
                .fallback(
                    Response(
                        status: .accepted, headers: [HTTPField.Name("X-Queued")!: "yes"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: "queued")))))
            Recover(.code(ErrorCode("shop", "NOT_SIGNED_IN")), .fallback("signed out, shown as a page"))
            Recover(.code(ErrorCode("nwc", "RATE_LIMITED")), .fallback(Cached(count: 3)))
            FollowDescriptor()
        }
        let router = Router()
        router.add(middleware: ProblemDetailsMiddleware(pipeline: pipeline))
        router.get("quantity") { _, _ -> String in throw DomainError(domain: "shop", code: "INVALID_QUANTITY") }
        router.get("orders") { _, _ -> String in throw DomainError(domain: "shop", code: "NOT_SIGNED_IN") }
        router.get("pay") { _, _ -> String in throw DomainError(domain: "nwc", code: "RATE_LIMITED") }
        try await withServer(router) { port in
            let queued = try await get(port, "/quantity")
            #expect(queued.status == 202)
            #expect(queued.headers["x-queued"] == "yes")
            #expect(queued.body == "queued")
            let page = try await get(port, "/orders")
            #expect(page.status == 200)
            #expect(page.body == "signed out, shown as a page")
            let limited = try await get(port, "/pay")
            #expect(limited.status == 429)
            #expect(limited.headers["content-type"] == "application/problem+json")
            #expect(try limited.json()["code"] as? String == "nwc/RATE_LIMITED")
        }
    }

    /// The pipeline's events name the method and the matched route's pattern, kept once made for each method and
    /// route.
    @Test func theOperationIsTheMethodAndTheMatchedRoutesPattern() async throws {
        let registry = try makeServiceRegistry()
        let recorder = RecordingObserver()
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [recorder])
        ) { FollowDescriptor() }
        let router = Router()
        router.add(middleware: ProblemDetailsMiddleware(pipeline: pipeline))
        let invalid: @Sendable (Request, BasicRequestContext) throws -> String = { _, _ in
            throw DomainError(domain: "shop", code: "INVALID_QUANTITY")
        }
        router.get("orders/:id", use: invalid)
        router.post("orders/:id", use: invalid)
        router.get("orders/:id/lines/:line", use: invalid)
        try await withServer(router) { port in
            for round in 1...3 {
                let order = try await get(port, "/orders/\(round)")
                let posted = try await get(port, "/orders/\(round)", method: .POST)
                let line = try await get(port, "/orders/7/lines/\(round)")
                let nowhere = try await get(port, "/no-such-route/\(round)")
                let statuses: [Int] = [order.status, posted.status, line.status, nowhere.status]
                #expect(statuses == [422, 422, 422, 404])
            }
        }
        // Hummingbird's router names a request that matched no route `NotFound`, as in its own spans and metrics.
        let expected = Array(
            repeating: ["GET /orders/{id}", "POST /orders/{id}", "GET /orders/{id}/lines/{line}", "GET NotFound"],
            count: 3
        ).flatMap { $0 }
        #expect(recorder.records.map(\.event.operation) == expected)
    }

    /// The middleware keeps the head of each size of body it answered with: whatever the path's length, and past
    /// the sizes it keeps, an answer's Content-Length is its own body's.
    @Test func everyAnswersContentLengthIsItsOwnBodys() async throws {
        let registry = try makeServiceRegistry()
        let router = Self.router(registry: registry)
        router.get("items/:id") { _, _ -> String in throw DomainError(domain: "shop", code: "INVALID_QUANTITY") }
        try await withServer(router) { port in
            for length in 1...40 {
                let path = "/items/" + String(repeating: "7", count: length)
                for language in ["en", "tr"] {
                    let answer = try await get(port, path, headers: [("Accept-Language", language)])
                    #expect(answer.status == 422)
                    #expect(answer.headers["content-length"] == String(answer.body.utf8.count), "\(path)")
                    #expect(try answer.json()["instance"] as? String == path)
                }
            }
        }
    }
}
#endif
