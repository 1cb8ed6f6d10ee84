#if Hummingbird && OpenTelemetry
import Axiom
import AxiomTesting
import AxiomTracing
import InMemoryLogging
import InMemoryTracing
import Logging
import Synchronization
import Testing
import Tracing

/// A failure whose description holds a secret.
struct LeakyFailure: Error, CustomStringConvertible {
    var description: String { "login failed: password=hunter2 for alice@example.com" }
}

/// Decided errors on spans, with an in-memory tracer: one event per error, and the span's status from how the
/// error finally ended.
@Suite("Tracing")
struct TracingTests {
    let registry: ErrorRegistry

    init() throws {
        _ = SharedTracer.tracer
        registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.trace", domains: ["trace"],
                descriptors: [
                    ErrorDescriptor(code: ErrorCode("trace", "EXPECTED"), category: .state, disposition: .ignore),
                    ErrorDescriptor(code: ErrorCode("trace", "BROKEN"), category: .api, disposition: .handle),
                    ErrorDescriptor(code: ErrorCode("trace", "UPWARD"), category: .auth, disposition: .escalate),
                    ErrorDescriptor(
                        code: ErrorCode("trace", "SECRET"), category: .auth, disposition: .handle, isSensitive: true),
                ]))
    }

    func pipeline(_ layer: Layer, escalatesTo next: Layer?) -> ErrorPipeline<some ErrorHandler> {
        ErrorPipeline(
            layer: layer, escalatesTo: next,
            configuration: PipelineConfiguration(
                registry: registry, observers: [TracingErrorObserver()], instrument: TracingInstrument())
        ) {
            Recover(.code(ErrorCode("trace", "FLAKY")), .fallback("cached"))
            FollowDescriptor()
        }
    }

    /// Runs `body` in a span of its own and returns the finished span.
    func span(_ name: String, _ body: () async throws -> Void) async throws -> FinishedInMemorySpan {
        try await withSpan(name) { _ in try await body() }
        return try #require(SharedTracer.finished(name).first)
    }

    @Test func aRecoveredErrorIsAnEventButNoFailure() async throws {
        let client = pipeline(.client, escalatesTo: nil)
        let span = try await span("trace.recovered") {
            let outcome = try await client.run("fetch") { () -> String in
                throw DomainError(domain: "trace", code: "FLAKY")
            }
            #expect(outcome.value == "cached")
        }
        #expect(span.status == nil)
        let event = try #require(span.events.first { $0.name == TracingErrorObserver.eventName })
        #expect(event.attributes.string("error.type") == "trace/FLAKY")
        #expect(event.attributes.string("axiom.error.disposition") == "recover")
        #expect(event.attributes.string("axiom.error.layer") == "client")
        #expect(event.attributes.string("axiom.error.operation") == "fetch")
    }

    @Test func anIgnoredErrorIsAnEventButNoFailure() async throws {
        let client = pipeline(.client, escalatesTo: nil)
        let span = try await span("trace.ignored") {
            _ = try await client.run("poll") { () -> Int in throw DomainError(domain: "trace", code: "EXPECTED") }
        }
        #expect(span.status == nil)
        #expect(span.events.first?.attributes.string("axiom.error.disposition") == "ignore")
        #expect(span.attributes.string("error.type") == nil)
    }

    @Test func aHandledErrorFailsTheSpanWithItsType() async throws {
        let client = pipeline(.client, escalatesTo: nil)
        let span = try await span("trace.handled") {
            _ = try await client.run("charge") { () -> Int in throw DomainError(domain: "trace", code: "BROKEN") }
        }
        #expect(span.status?.code == .error)
        #expect(span.attributes.string("error.type") == "trace/BROKEN")
        #expect(span.events.first?.attributes.string("axiom.error.category") == "api")
    }

    @Test func anEscalationFailsTheSpanOnlyWhereItIsHandled() async throws {
        let client = pipeline(.client, escalatesTo: .context)
        let context = pipeline(.context, escalatesTo: nil)
        let span = try await span("trace.escalated") {
            let outcome = try await context.run("checkout") { () -> Int in
                let inner = try await client.run("login") { () -> Int in
                    throw DomainError(domain: "trace", code: "UPWARD")
                }
                return inner.value ?? 0
            }
            #expect(outcome.disposition == .handle)
        }
        // The client layer escalated (an event, no status); the context layer, terminal, handled it.
        let dispositions = span.events.filter { $0.name == TracingErrorObserver.eventName }
            .compactMap { $0.attributes.string("axiom.error.disposition") }
        #expect(dispositions == ["escalate", "handle"])
        #expect(span.status?.code == .error)
    }

    @Test func theMessageIsRedactedAndASensitiveCodesIsLeftOut() async throws {
        let client = pipeline(.client, escalatesTo: nil)
        let span = try await span("trace.redacted") {
            _ = try await client.run("login") { () -> Int in throw LeakyFailure() }
            _ = try await client.run("token") { () -> Int in
                throw DomainError(domain: "trace", code: "SECRET", message: "token=abc")
            }
        }
        let events = span.events.filter { $0.name == TracingErrorObserver.eventName }
        #expect(events.count == 2)
        let message = try #require(events.first?.attributes.string("axiom.error.message"))
        #expect(!message.contains("hunter2") && !message.contains("alice@example.com"))
        #expect(message.contains("login failed"))
        #expect(events.last?.attributes.string("axiom.error.message") == nil)
    }

    @Test func eachRetryIsAnEventOfTheOperationsSpan() async throws {
        let clock = ManualClock()
        let failures = Mutex(2)
        let telemetry = ResilienceTelemetry(pipeline: "payments", onEvent: ResilienceSpanEvents().record)
        let chain = OperationChain {
            RetryStage(
                configuration: .init(
                    fixedPolicy: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(2), jitter: false),
                    telemetry: telemetry), clock: clock
            )
        }
        let run = Task {
            try await withSpan("trace.retries") { _ in
                try await chain.run("pay") { () -> String in
                    if failures.withLock({ left in
                        defer { left -= 1 }; return left > 0
                    }) {
                        throw DomainError(domain: "trace", code: "BROKEN")
                    }
                    return "paid"
                }
            }
        }
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            clock.advanceToNextDeadline()
        }
        #expect(try await run.value == "paid")
        let span = try #require(SharedTracer.finished("trace.retries").first)
        let retries = span.events.filter { $0.name == "axiom.resilience.retry" }
        #expect(retries.map { $0.attributes.integer("axiom.resilience.attempt") } == [1, 2])
        #expect(retries.allSatisfy { $0.attributes.string("error.type") == "trace/BROKEN" })
        #expect(retries.allSatisfy { $0.attributes.integer("axiom.resilience.delay_ms") == 2000 })
        #expect(retries.allSatisfy { $0.attributes.string("axiom.resilience.pipeline") == "payments" })
        #expect(retries.allSatisfy { $0.attributes.string("axiom.resilience.operation") == "pay" })
    }

    @Test func logLinesInASpanCarryItsTraceAndSpanIDs() async throws {
        let logs = InMemoryLogHandler()
        var handler = logs
        handler.metadataProvider = .axiomTrace
        let logger = Logger(label: "trace.logs", factory: { _ in handler })
        logger.info("outside")
        var ids: TraceIdentifiers?
        withSpan("trace.logs") { _ in
            ids = TraceIdentifiers.current
            logger.info("inside")
        }
        let span = try #require(SharedTracer.finished("trace.logs").first)
        #expect(ids == TraceIdentifiers(traceID: span.traceID, spanID: span.spanID))
        let entries = logs.entries
        #expect(entries.count == 2)
        #expect(entries.first?.metadata["trace-id"] == nil)
        #expect(entries.last?.metadata["trace-id"] == .string(span.traceID))
        #expect(entries.last?.metadata["span-id"] == .string(span.spanID))
    }

    @Test func aW3CTraceparentIsReadAndAZeroOneIsNot() {
        let ids = TraceIdentifiers.fromTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(ids == TraceIdentifiers(traceID: "4bf92f3577b34da6a3ce929d0e0e4736", spanID: "00f067aa0ba902b7"))
        #expect(TraceIdentifiers.fromTraceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01") == nil)
        #expect(TraceIdentifiers.fromTraceparent("garbage") == nil)
    }

    static let w3cTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let w3cSpan = "00f067aa0ba902b7"

    @Test(
        "a traceparent's ids are read as W3C writes them, lower-cased, or not at all",
        arguments: [
            ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", true),
            ("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-a-later-version-adds", true),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e47366-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e47g6-00f067aa0ba902b7-01", false),
            ("00-\u{FF14}bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01", false),
            ("", false), ("-", false), ("---", false),
        ])
    func traceparentFields(value: String, isRead: Bool) {
        let expected = isRead ? TraceIdentifiers(traceID: Self.w3cTrace, spanID: Self.w3cSpan) : nil
        #expect(TraceIdentifiers.fromTraceparent(value) == expected)
        #expect(TraceIdentifiers.of(.topLevel, injectedBy: InjectingInstrument(["traceparent": value])) == expected)
        #expect(TraceIdentifiers.hasSpan(.topLevel, injectedBy: InjectingInstrument(["traceparent": value])) == isRead)
    }

    @Test("a context has a span exactly when its ids can be read: a traceparent's, else another tracer's keys")
    func hasSpanAgreesWithTheIds() {
        let traceparent = "00-\(Self.w3cTrace)-\(Self.w3cSpan)-01"
        let cases: [(InjectingInstrument, TraceIdentifiers?)] = [
            (InjectingInstrument([:]), nil),
            (
                InjectingInstrument(["traceparent": traceparent]),
                TraceIdentifiers(traceID: Self.w3cTrace, spanID: Self.w3cSpan)
            ),
            // A traceparent that cannot be read leaves the keys to name the span.
            (
                InjectingInstrument(["traceparent": "garbage", "x-trace-id": "t1", "x-span-id": "s1"]),
                TraceIdentifiers(traceID: "t1", spanID: "s1")
            ),
            (InjectingInstrument(["x-trace-id": "t1", "x-span-id": ""]), nil),
            (InjectingInstrument(["x-trace-id": "t1"]), nil),
        ]
        for (instrument, ids) in cases {
            #expect(TraceIdentifiers.of(.topLevel, injectedBy: instrument) == ids)
            #expect(TraceIdentifiers.hasSpan(.topLevel, injectedBy: instrument) == (ids != nil))
        }
    }

    @Test func theCrashReporterIsToldTheIdsOfTheSpanAW3CInstrumentInjects() async {
        let w3c = InjectingInstrument(["traceparent": "00-\(Self.w3cTrace)-\(Self.w3cSpan)-01", "tracestate": "a=b"])
        let announced = await CrashTrace.withSpan(of: .topLevel, injectedBy: w3c) { FlightRecorder.currentTrace() }
        #expect(
            announced?.traceID == [
                0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36,
            ])
        #expect(announced?.spanID == [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7])
        #expect(FlightRecorder.currentTrace() == nil)

        // Ids of W3C's lengths under another tracer's keys are announced; any others, or none, announce nothing.
        let keyed = InjectingInstrument(["x-trace-id": Self.w3cTrace, "x-span-id": Self.w3cSpan])
        let fromKeys = await CrashTrace.withSpan(of: .topLevel, injectedBy: keyed) { FlightRecorder.currentTrace() }
        #expect(fromKeys?.spanID == [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7])
        for instrument in [
            InjectingInstrument([:]), InjectingInstrument(["x-trace-id": "1", "x-span-id": "2"]),
            InjectingInstrument(["traceparent": "00-\(Self.w3cTrace)-0000000000000000-01"]),
        ] {
            let none = await CrashTrace.withSpan(of: .topLevel, injectedBy: instrument) {
                FlightRecorder.currentTrace()
            }
            #expect(none == nil)
        }
    }
}

/// Injects fixed values into every carrier, whatever the context: a tracer's propagator, as far as a reader of
/// the ids can tell.
struct InjectingInstrument: Instrument {
    let values: [(key: String, value: String)]

    init(_ values: KeyValuePairs<String, String>) { self.values = values.map { ($0.key, $0.value) } }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        for (key, value) in values { injector.inject(value, forKey: key, into: &carrier) }
    }
}
#endif
