#if Vapor
import AsyncHTTPClient
import Axiom
import AxiomShopFixture
import AxiomTesting
import AxiomTracing
import AxiomVapor
import Foundation
import InMemoryTracing
import Testing
import Tracing
import Vapor

/// A status error of the service's own, which no catalog registers: it keeps its status.
struct Locked: AbortError {
    var status: HTTPResponseStatus { .locked }
    var reason: String { "row 42 locked by a migration" }
}

/// What a recovery answers with: a value Vapor encodes as JSON.
struct Quote: Content {
    var price: Int
    var cached: Bool
}

/// A real Vapor application on loopback, called by AsyncHTTPClient: every error a route throws is answered with
/// problem details decided through the application's pipeline.
@Suite("Problem details from a Vapor application", .timeLimit(.minutes(1)))
struct ProblemDetailsMiddlewareTests {
    /// The request pipeline: the handlers given, observed by `recorder`, the tracing observer and instrument.
    static func pipeline<Handlers: ErrorHandler>(
        _ registry: ErrorRegistry, recorder: RecordingObserver = RecordingObserver(), escalatesTo next: Layer? = nil,
        @ErrorHandlerBuilder _ handlers: () -> Handlers
    ) -> ErrorPipeline<Handlers> {
        ErrorPipeline(
            layer: Layer("request"), escalatesTo: next,
            configuration: PipelineConfiguration(
                registry: registry, observers: [recorder, TracingErrorObserver()], instrument: TracingInstrument()),
            handlers: handlers)
    }

    /// The request pipeline with `FollowDescriptor()` alone.
    static func pipeline(
        _ registry: ErrorRegistry, recorder: RecordingObserver = RecordingObserver()
    ) -> ErrorPipeline<FollowDescriptor> {
        pipeline(registry, recorder: recorder) { FollowDescriptor() }
    }

    /// Routes that throw, and the middleware, inside Vapor's `ErrorMiddleware` (which a new application has):
    /// added at the end, the middleware answers first.
    static func configure<Handlers: ErrorHandler>(
        _ pipeline: ErrorPipeline<Handlers>, tracer: InMemoryTracer? = nil
    ) -> @Sendable (Application) throws -> Void {
        { app in
            if let tracer {
                app.middleware.use(ScopedTracer(tracer: tracer))
                app.middleware.use(TracingMiddleware())
            }
            app.middleware.use(ProblemDetailsMiddleware(pipeline: pipeline))
            app.get("pay") { _ -> String in
                throw DomainError(domain: "shop", code: "RATE_LIMITED", message: "rate limited by the wallet")
            }
            app.get("orders", ":id") { _ -> String in
                throw DomainError(domain: "shop", code: "INVALID_QUANTITY", message: "quantity=0")
            }
            app.get("ledger") { _ -> String in throw DomainError(domain: "shop", code: "LEDGER_DOWN") }
            app.get("sold-out") { _ -> String in throw DomainError(domain: "shop", code: "SOLD_OUT") }
            app.get("missing") { _ -> String in throw Abort(.notFound, reason: "no invoice 42 for user 7") }
            app.get("locked") { _ -> String in throw Locked() }
            app.get("boom") { _ -> String in throw DatabaseDown() }
            app.get("fine") { _ in "fine" }
        }
    }

    @Test func aRegisteredCodeCarriesItsStatusRetryAfterAndTheClientsLanguage() async throws {
        let registry = try shopRegistry()
        try await withServer(Self.configure(Self.pipeline(registry))) { port in
            let turkish = try await get(port, "/pay", acceptLanguage: "de;q=0.9, tr-TR, en;q=0.5")
            #expect(turkish.status == 429)
            #expect(turkish.field(.retryAfter) == "30")
            #expect(turkish.field(.contentType) == "application/problem+json")
            #expect(turkish.field(.vary) == "Accept-Language")
            #expect(turkish.field(.contentLanguage) == "tr")
            let body = try turkish.json()
            #expect(body["code"] as? String == "shop/RATE_LIMITED")
            #expect(body["status"] as? Int == 429)
            #expect(body["title"] as? String == "Yavaşlayın")
            #expect(body["detail"] as? String == "Çok fazla istek. Daha sonra yeniden deneyin.")
            #expect(body["instance"] as? String == "/pay")
            #expect(body["type"] as? String == "about:blank")
            #expect(!turkish.text.contains("wallet"))

            let english = try await get(port, "/pay")
            #expect(english.field(.contentLanguage) == "en")
            #expect(try english.json()["title"] as? String == "Slow down")
            #expect(try await get(port, "/fine").text == "fine")
            #expect(try await get(port, "/fine").field(.vary) == nil)
        }
    }

    @Test func theAnswerReadsBackToTheSameCodeAndWait() async throws {
        let registry = try shopRegistry()
        try await withServer(Self.configure(Self.pipeline(registry))) { port in
            let answer = try await get(port, "/pay", acceptLanguage: "tr")
            let peer = try ProblemReader(registry: registry).read(answer.head, body: answer.body, now: Date())
            #expect(peer.code == ErrorCode("shop", "RATE_LIMITED"))
            #expect(peer.status == 429)
            #expect(peer.retryAfter == .seconds(30))
            #expect(peer.title == "Yavaşlayın")
            #expect(peer.descriptor?.disposition == .recover)
        }
    }

    @Test func vaporsOwnErrorsAreAxiomHTTPCodesInTheClientsLanguage() async throws {
        let registry = try shopRegistry()
        try await withServer(Self.configure(Self.pipeline(registry))) { port in
            // Abort(.notFound) from a route, and a path no route matches (Vapor's RouteNotFound).
            for path in ["/missing", "/no-such-route"] {
                let answer = try await get(port, path, acceptLanguage: "tr")
                #expect(answer.status == 404, "\(path)")
                #expect(answer.field(.contentLanguage) == "tr", "\(path)")
                #expect(answer.field(.vary) == "Accept-Language", "\(path)")
                let body = try answer.json()
                #expect(body["code"] as? String == "axiom.http/404", "\(path)")
                #expect(body["title"] as? String == "Bulunamadı", "\(path)")
                #expect(body["detail"] as? String == "Bu adreste bir şey bulunamadı.", "\(path)")
                #expect(body["instance"] as? String == path, "\(path)")
                // Vapor's own body ({"error":true,"reason":...}) is not what the client gets.
                #expect(!answer.text.contains("reason") && !answer.text.contains("invoice 42"), "\(path)")
            }
            // An AbortError no catalog registers keeps its status, with the one generic identity.
            let locked = try await get(port, "/locked")
            #expect(locked.status == 423)
            #expect(try locked.json()["code"] as? String == "axiom/unknownError")
            #expect(!locked.text.contains("migration"))
        }
    }

    @Test func anUnregisteredErrorIsTheGenericServerErrorAndNeverItsDescription() async throws {
        let registry = try shopRegistry()
        try await withServer(Self.configure(Self.pipeline(registry))) { port in
            let answer = try await get(port, "/boom", acceptLanguage: "tr")
            #expect(answer.status == 500)
            let body = try answer.json()
            #expect(body["code"] as? String == "axiom/unknownError")
            #expect(body["title"] as? String == "Bir şeyler ters gitti")
            #expect(body["detail"] as? String == "Bir şeyler ters gitti. Lütfen yeniden deneyin.")
            #expect(!answer.text.contains("hunter2") && !answer.text.contains("DatabaseDown"))
            // A registered 5xx says only the generic text too, never its catalog's detail.
            let ledger = try await get(port, "/ledger")
            #expect(ledger.status == 500)
            #expect(try ledger.json()["code"] as? String == "shop/LEDGER_DOWN")
            #expect(try ledger.json()["detail"] as? String == "Something went wrong. Please try again.")
            #expect(!ledger.text.contains(ledgerHost))
        }
    }

    @Test func aRecoveredResponseOrContentIsSentAsItIs() async throws {
        let registry = try shopRegistry()
        let pipeline = Self.pipeline(registry) {
            Recover(
                .code(ErrorCode("shop", "RATE_LIMITED")),
                .fallback(Response(status: .accepted, headers: ["X-Queued": "yes"], body: .init(string: "queued"))))
            Recover(.code(ErrorCode("shop", "SOLD_OUT")), .fallback(Quote(price: 12, cached: true)))
            FollowDescriptor()
        }
        try await withServer(Self.configure(pipeline)) { port in
            let queued = try await get(port, "/pay")
            #expect(queued.status == 202)
            #expect(queued.field(HTTPField.Name("X-Queued")!) == "yes")
            #expect(queued.text == "queued")
            let quote = try await get(port, "/sold-out")
            #expect(quote.status == 200)
            #expect(quote.field(.contentType)?.hasPrefix("application/json") == true)
            let body = try quote.json()
            #expect(body["price"] as? Int == 12)
            #expect(body["cached"] as? Bool == true)
        }
    }

    /// A pipeline that escalates to a layer the application does not run there: the middleware is the last to
    /// catch the escalation, and answers the error it was translated to.
    @Test func anEscalationPastTheLastLayerIsAnsweredWithTheTranslatedError() async throws {
        let registry = try shopRegistry()
        let pipeline = Self.pipeline(registry, escalatesTo: Layer("service")) {
            Escalate(
                .code(ErrorCode("shop", "SOLD_OUT")), as: DomainError(domain: "shop", code: "INVALID_QUANTITY"))
            FollowDescriptor()
        }
        try await withServer(Self.configure(pipeline)) { port in
            let answer = try await get(port, "/sold-out", acceptLanguage: "tr")
            #expect(answer.status == 422)
            let body = try answer.json()
            #expect(body["code"] as? String == "shop/INVALID_QUANTITY")
            #expect(body["title"] as? String == "Miktarı kontrol edin")
        }
    }

    @Test func theOperationIsTheMethodAndTheMatchedRoutesPattern() async throws {
        let registry = try shopRegistry()
        let recorder = RecordingObserver()
        try await withServer(Self.configure(Self.pipeline(registry, recorder: recorder))) { port in
            // Each route's name is kept once made; a path that matched no route is named by itself each time.
            for round in 1...3 {
                let order = try await get(port, "/orders/\(round)")
                let nowhere = try await get(port, "/no-such-route/\(round)")
                #expect(order.status == 422 && nowhere.status == 404)
            }
        }
        let operations = recorder.records.map(\.event.operation)
        #expect(operations == (1...3).flatMap { ["GET /orders/:id", "GET /no-such-route/\($0)"] })
    }

    /// Vapor's TracingMiddleware makes the request's span current for the responders inside it, so the answer
    /// names its trace, the span gets `error.type`, and its status is error only for a 5xx (OpenTelemetry's HTTP
    /// conventions leave a SERVER span's status unset for a 4xx).
    @Test func theRequestsSpanReachesTheBodyAndGetsTheErrorsCode() async throws {
        let registry = try shopRegistry()
        let tracer = InMemoryTracer()
        try await withServer(Self.configure(Self.pipeline(registry), tracer: tracer)) { port in
            let limited = try await get(port, "/pay")
            let trace = try #require(try limited.json()["traceId"] as? String)
            let span = try await finishedSpan(tracer, traceID: trace)
            #expect(span.kind == .server)
            #expect(span.attributes.string("error.type") == "shop/RATE_LIMITED")
            #expect(span.status == nil)
            #expect(span.events.contains { $0.name == TracingErrorObserver.eventName })

            let failed = try await get(port, "/boom")
            let server = try await finishedSpan(
                tracer, traceID: try #require(try failed.json()["traceId"] as? String))
            #expect(server.status?.code == .error)
            // The span, unlike the answer, names what the error really was.
            #expect(server.attributes.string("error.type")?.hasSuffix("DatabaseDown") == true)
        }
    }

    /// The finished SERVER span of `traceID`, waited for (bounded in count): Vapor ends it as the response leaves
    /// the middleware.
    func finishedSpan(_ tracer: InMemoryTracer, traceID: String) async throws -> FinishedInMemorySpan {
        var span: FinishedInMemorySpan?
        for _ in 0..<200 where span == nil {
            span = tracer.finishedSpans.first { $0.traceID == traceID && $0.kind == .server }
            if span == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        return try #require(span, "no finished server span in trace \(traceID)")
    }
}
#endif
