import Axiom
import AxiomTesting
import Synchronization
import Testing

/// Errors of a test domain with one code per disposition.
enum ShopError: IdentifiableError {
    case outOfStock, busy, expired, broken, sold

    static let domain = "shop"

    var errorCode: ErrorCode {
        switch self {
        case .outOfStock: ErrorCode(Self.domain, "OUT_OF_STOCK")
        case .busy: ErrorCode(Self.domain, "BUSY")
        case .expired: ErrorCode(Self.domain, "EXPIRED")
        case .broken: ErrorCode(Self.domain, "BROKEN")
        case .sold: ErrorCode(Self.domain, "SOLD")
        }
    }

    static let catalog = ErrorCatalog(
        source: "test.shop", domains: [domain],
        descriptors: [
            ErrorDescriptor(
                code: ShopError.outOfStock.errorCode, category: .api, severity: .info, disposition: .ignore),
            ErrorDescriptor(
                code: ShopError.busy.errorCode, numericCode: 503, category: .network, severity: .warning,
                disposition: .recover, retry: RetryPolicy(maxAttempts: 3, backoff: .exponential, delay: .seconds(1))),
            ErrorDescriptor(
                code: ShopError.expired.errorCode, category: .auth, disposition: .escalate,
                escalation: ErrorCode("axiom.context", "stateObservationFailed")),
            ErrorDescriptor(code: ShopError.broken.errorCode, category: .general, severity: .critical),
            ErrorDescriptor(code: ShopError.sold.errorCode, category: .validation, severity: .warning),
        ])
}

/// A pipeline factory for tests: its own registry, a recording observer and a manual clock.
struct Harness {
    let registry = ErrorRegistry()
    let recorder = RecordingObserver()
    let clock = ManualClock()

    init() throws { try registry.register(ShopError.catalog) }

    var configuration: PipelineConfiguration {
        PipelineConfiguration(registry: registry, observers: [recorder], clock: clock)
    }
}

/// Counts calls across concurrency domains.
actor Counter {
    private(set) var value = 0
    @discardableResult func next() -> Int {
        value += 1
        return value
    }
}

/// Runs an operation that always throws `ShopError.busy` through `pipeline`, letting each of `retries` waits on
/// `clock` pass; returns the outcome and how many times the operation ran.
func runAlwaysBusy(
    _ pipeline: ErrorPipeline<some ErrorHandler>, retries: Int, clock: ManualClock
) async throws -> (Outcome<Int>, Int) {
    let calls = Counter()
    let task = Task {
        try await pipeline.run("poll") { () async throws -> Int in
            await calls.next()
            throw ShopError.busy
        }
    }
    for _ in 0..<retries {
        await clock.waitForSleepers(1)
        clock.advanceToNextDeadline()
    }
    return (try await task.value, await calls.value)
}

@Suite("Handlers")
struct HandlerTests {
    @Test("ignore drops an expected error: no value, one ignored outcome")
    func ignore() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Ignore(ShopError.self)
        }
        let outcome = try await pipeline.run("fetch") { () throws -> Int in throw ShopError.outOfStock }
        #expect(outcome.disposition == .ignore)
        #expect(outcome.value == nil)
        #expect(harness.recorder.dispositions == [.ignore])
    }

    @Test("recover retries on the injected clock with the policy's backoff and returns the value")
    func recoverRetries() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Recover(.code(ShopError.busy.errorCode), .descriptorPolicy())
        }
        let calls = Counter()
        let task = Task {
            try await pipeline.run("fetch") { () async throws -> String in
                if await calls.next() < 3 { throw ShopError.busy }
                return "ok"
            }
        }
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(2))
        let outcome = try await task.value
        #expect(outcome.value == "ok")
        #expect(outcome.disposition == .recover)
        #expect(harness.clock.requestedSleeps == [.seconds(1), .seconds(2)])
        // The event describes the last failed attempt; the first failure is kept with it.
        #expect(outcome.event?.attempt == 2)
        #expect(outcome.event?.previousErrors.count == 1)
        #expect(harness.recorder.dispositions == [.recover])
    }

    @Test("a fallback value recovers at once")
    func recoverWithFallback() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Recover(.type(ShopError.self), .fallback([String]()))
        }
        let outcome = try await pipeline.run("list") { () throws -> [String] in throw ShopError.sold }
        #expect(outcome.value == [])
        #expect(outcome.disposition == .recover)
    }

    @Test("a fallback strategy recovers with its value every time, through run and decide alike")
    func fallbackRecoversEveryTime() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Recover(.type(ShopError.self), .fallback(["cached"]))
        }
        for _ in 0..<3 {
            let outcome = try await pipeline.run("list") { () throws -> [String] in throw ShopError.sold }
            #expect(outcome.value == ["cached"])
            let decided = try pipeline.decide(ShopError.sold, operation: "list")
            #expect(decided.value as? [String] == ["cached"])
        }
        #expect(harness.recorder.dispositions == Array(repeating: .recover, count: 6))
    }

    @Test("a decision is small enough to come back from a handler in registers")
    func decisionFitsInRegisters() {
        // Swift returns up to four words in registers; a bigger decision goes through memory on every dispatch,
        // from every handler of the chain. The recovery's closure and fallback value are boxed to keep it small.
        #expect(MemoryLayout<ErrorDecision>.size <= 4 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<Recovery>.size <= 3 * MemoryLayout<Int>.size)
    }

    @Test("a recovery that fails passes the new error on, with the old one attached")
    func failedRecovery() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            Recover(.code(ShopError.expired.errorCode), .prepareThenRetry(maxAttempts: 2) {})
            Handle()
        }
        let calls = Counter()
        let outcome = try await pipeline.run("checkout") { () async throws -> Int in
            throw await calls.next() == 1 ? ShopError.expired : ShopError.broken
        }
        let event = try #require(outcome.event)
        #expect(outcome.disposition == .handle)
        #expect(event.code == ShopError.broken.errorCode)
        #expect(event.previousErrors.count == 1)
        #expect((event.previousErrors.first as? ShopError) == .expired)
        #expect(harness.recorder.dispositions == [.handle])
    }

    @Test("escalate passes the error, translated, to the next layer")
    func escalate() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Escalate(.type(ClientError.self), as: ContextError.stateObservationFailed)
        }
        let thrown = await #expect(throws: EscalatedError.self) {
            _ = try await pipeline.run("observe") { () throws -> Int in throw ClientError.invalidState }
        }
        #expect(thrown?.target == .context)
        #expect((thrown?.error as? ContextError).map { "\($0)" } == "stateObservationFailed")
        #expect(harness.recorder.dispositions == [.escalate])
    }

    @Test("default takes what nobody else did and runs its action")
    func defaultHandler() async throws {
        let harness = try Harness()
        let shown = RecordingObserver()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            Ignore(.code(ShopError.outOfStock.errorCode))
            Handle { event in shown.observe(event, disposition: .handle) }
        }
        let outcome = try await pipeline.run("buy") { () throws -> Int in throw ShopError.broken }
        #expect(outcome.disposition == .handle)
        #expect(shown.records.map(\.event.code) == [ShopError.broken.errorCode])
    }

    @Test("matching by type, code, category and predicate picks the right handler")
    func matching() throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Ignore(.where { $0.operation == "prefetch" })
            Ignore(.code(ErrorCode("shop", "503")))  // a numeric alias matches its code
            Ignore(.category(.validation))
            Recover(.type(ClientError.self), .fallback(0))
        }
        #expect(throws: Never.self) { try pipeline.decide(ShopError.broken, operation: "prefetch") }
        #expect(try pipeline.decide(ShopError.broken, operation: "prefetch").disposition == .ignore)
        #expect(try pipeline.decide(ShopError.busy, operation: "x").disposition == .ignore)
        #expect(try pipeline.decide(ShopError.sold, operation: "x").disposition == .ignore)
        #expect(try pipeline.decide(ClientError.isolationBreach, operation: "x").disposition == .recover)
        #expect(throws: EscalatedError.self) { try pipeline.decide(ShopError.broken, operation: "x") }
    }

    @Test("handlers from a for loop are asked in order, and their codes are matched like any other's")
    func handlersFromALoop() throws {
        let harness = try Harness()
        let ignored = [ErrorCode("shop", "503"), ErrorCode("shop", "SOLD")]
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            for code in ignored {
                Ignore(.code(code))
            }
            Recover(.type(ShopError.self), .fallback(0))
        }
        #expect(try pipeline.decide(ShopError.busy, operation: "x").disposition == .ignore)
        #expect(try pipeline.decide(ShopError.sold, operation: "x").disposition == .ignore)
        #expect(try pipeline.decide(ShopError.broken, operation: "x").disposition == .recover)
        #expect(throws: EscalatedError.self) { try pipeline.decide(ClientError.isolationBreach, operation: "x") }
    }

    @Test(
        "handlers chosen at run time, of different types, are asked in order behind AnyErrorHandler: their codes bound, what they throw recorded"
    )
    func erasedHandlers() throws {
        struct Boom: Error {}
        let harness = try Harness()
        // Rules as a configuration file would give them: a kind and a code (503 is BUSY's numeric alias).
        let rules = [("ignore", "SOLD"), ("fallback", "503")]
        let handlers = rules.map { kind, code in
            kind == "ignore"
                ? AnyErrorHandler(Ignore(.code(ErrorCode("shop", code))))
                : AnyErrorHandler(Recover(.code(ErrorCode("shop", code)), .fallback(7)))
        }
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Handle(.code(ErrorCode("shop", "BUSY"))) { _ in throw Boom() }
            for handler in handlers {
                handler
            }
        }
        #expect(try pipeline.decide(ShopError.sold, operation: "x").disposition == .ignore)
        let busy = try pipeline.decide(ShopError.busy, operation: "x")
        #expect(busy.disposition == .recover)
        #expect(busy.value as? Int == 7)
        #expect(busy.event?.handlerFailures.first?.error is Boom)
        #expect(throws: EscalatedError.self) { try pipeline.decide(ShopError.broken, operation: "x") }
    }

    @Test("an error that no handler takes escalates from an inner layer and is handled at the top")
    func nobodyTakesIt() async throws {
        let harness = try Harness()
        let inner = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {}
        let top = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {}
        #expect(throws: EscalatedError.self) { try inner.decide(ShopError.broken, operation: "x") }
        #expect(try top.decide(ShopError.broken, operation: "x").disposition == .handle)
        #expect(harness.recorder.dispositions == [.escalate, .handle])
    }

    @Test("a handler that throws loses nothing: the failure is recorded and the next handler decides")
    func throwingHandler() throws {
        struct Boom: Error {}
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            Handle(.any) { _ in throw Boom() }
            Ignore(.any)
        }
        let outcome = try pipeline.decide(ShopError.broken, operation: "x")
        let event = try #require(outcome.event)
        #expect(outcome.disposition == .ignore)
        #expect((event.error as? ShopError) == .broken)
        #expect(event.handlerFailures.count == 1)
        #expect(event.handlerFailures.first?.error is Boom)
    }

    @Test(
        "a combinator written by an application keeps what its handlers throw and binds their code matchers")
    func applicationCombinator() throws {
        struct Boom: Error {}
        /// Asks its handlers only for errors of one domain: a combinator as an application would write one.
        struct OnlyDomain<Wrapped: ErrorHandler>: ErrorHandler {
            let domain: String
            let wrapped: Wrapped
            init(_ domain: String, @ErrorHandlerBuilder _ wrapped: () -> Wrapped) {
                self.domain = domain
                self.wrapped = wrapped()
            }
            func decide(_ event: ErrorEvent) throws -> ErrorDecision {
                event.descriptor.code.domain == domain ? try wrapped.decide(event) : .pass
            }
            func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
                event.descriptor.code.domain == domain ? wrapped.decide(event, failures: &failures) : .pass
            }
            func bound(to registry: ErrorRegistry) -> Self {
                OnlyDomain(domain: domain, wrapped: wrapped.bound(to: registry))
            }
            private init(domain: String, wrapped: Wrapped) {
                self.domain = domain
                self.wrapped = wrapped
            }
        }
        /// Remembers whether the pipeline bound it.
        final class Count: Sendable { let value = Mutex(0) }
        struct BindSpy: ErrorHandler {
            let bindings = Count()
            func decide(_ event: ErrorEvent) -> ErrorDecision { .pass }
            func bound(to registry: ErrorRegistry) -> Self {
                bindings.value.withLock { $0 += 1 }
                return self
            }
        }
        let spy = BindSpy()
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            OnlyDomain(ShopError.domain) {
                spy
                Handle(.any) { _ in throw Boom() }
                Ignore(.code(ShopError.busy.errorCode))
            }
        }
        #expect(spy.bindings.value.withLock { $0 } == 1)

        let busy = try pipeline.decide(ShopError.busy, operation: "x")
        #expect(busy.disposition == .ignore)
        let event = try #require(busy.event)
        #expect(event.handlerFailures.count == 1)
        #expect(event.handlerFailures.first?.error is Boom)

        // Outside its domain the combinator passes; the terminal layer handles what nobody decided.
        let other = try pipeline.decide(ClientError.isolationBreach, operation: "x")
        #expect(other.disposition == .handle)
        #expect(try #require(other.event).handlerFailures.isEmpty)
    }

    @Test("the generic handler follows each descriptor, including a domain registered after it was built")
    func followDescriptor() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            FollowDescriptor()
        }
        #expect(try pipeline.decide(ShopError.outOfStock, operation: "x").disposition == .ignore)
        #expect(try pipeline.decide(CancellationError(), operation: "x").disposition == .ignore)
        let escalated = #expect(throws: EscalatedError.self) { try pipeline.decide(ShopError.expired, operation: "x") }
        #expect(
            harness.registry.identity(of: escalated!.error).code == ErrorCode("axiom.context", "stateObservationFailed")
        )

        try harness.registry.register(
            ErrorCatalog(
                source: "late.plugin", domains: ["late"],
                descriptors: [ErrorDescriptor(code: ErrorCode("late", "GONE"), category: .api, disposition: .ignore)]))
        #expect(try pipeline.decide(DomainError(domain: "late", code: "GONE"), operation: "x").disposition == .ignore)
    }

    @Test("the generic handler retries a recoverable code until its attempts are used up, then the layer ends it")
    func followDescriptorRetries() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            FollowDescriptor()
        }
        // Two retries (three attempts in all), each after one sleep on the clock.
        let (outcome, calls) = try await runAlwaysBusy(pipeline, retries: 2, clock: harness.clock)
        #expect(outcome.disposition == .handle)
        #expect(calls == 3)
        #expect(harness.clock.requestedSleeps == [.seconds(1), .seconds(2)])
    }

    @Test("cancellation stops a recovery at once")
    func cancellationStopsRecovery() async throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Recover(.any, .retry(RetryPolicy(maxAttempts: 10, backoff: .constant, delay: .seconds(60))))
        }
        let task = Task { try await pipeline.run("op") { () throws -> Int in throw ShopError.busy } }
        await harness.clock.waitForSleepers(1)
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.disposition == .ignore)
        #expect(outcome.event?.error is CancellationError)
        #expect(harness.recorder.dispositions == [.ignore])
    }

    @Test("escalation is bounded: past the limit the error is handled where it is")
    func escalationBound() throws {
        let harness = try Harness()
        var configuration = harness.configuration
        configuration.maxEscalations = 2
        // A layer that escalates to itself: a cycle a misconfigured layer stack could create.
        let relay = ErrorPipeline(layer: .context, escalatesTo: .context, configuration: configuration) {}
        var error: any Error = ShopError.broken
        var hops = 0
        var final: Disposition?
        while final == nil, hops < 10 {
            do {
                final = try relay.decide(error, operation: "loop").disposition
            } catch let escalated {
                error = escalated
                hops += 1
            }
        }
        #expect(final == .handle)
        #expect(hops == 3)
        #expect(harness.recorder.records.last?.event.escalations == 3)
        #expect(harness.recorder.records.last?.event.metadata["limit"] == "escalations")
        #expect(harness.recorder.records.dropLast().allSatisfy { $0.event.metadata["limit"] == nil })
    }

    @Test(
        "the layer's attempt limit ends a retry the handlers still want; the event names the limit and keeps what a handler threw"
    )
    func attemptLimit() async throws {
        struct Boom: Error {}
        let harness = try Harness()
        var configuration = harness.configuration
        configuration.maxAttempts = 3
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: configuration) {
            Handle(.code(ShopError.busy.errorCode)) { _ in throw Boom() }
            Recover(.any, .retry(RetryPolicy(maxAttempts: 10, backoff: .constant, delay: .seconds(1))))
        }
        let (outcome, calls) = try await runAlwaysBusy(pipeline, retries: 2, clock: harness.clock)
        let event = try #require(outcome.event)
        #expect(outcome.disposition == .handle)
        #expect(calls == 3)
        #expect(event.attempt == 3)
        #expect(event.metadata["limit"] == "attempts")
        // The throwing handler was asked at each of the three decisions.
        #expect(event.handlerFailures.count == 3)
        #expect(event.handlerFailures.allSatisfy { $0.error is Boom })
        #expect(harness.recorder.dispositions == [.handle])

        // Outside `run` nothing can be retried: a retry ends the error at the layer's end, and no limit was reached.
        let decided = try pipeline.decide(ShopError.busy, operation: "poll")
        #expect(decided.disposition == .handle)
        #expect(decided.event?.metadata["limit"] == nil)
        #expect(decided.event?.handlerFailures.count == 1)
    }

    @Test("every event gets exactly one outcome")
    func exactlyOneOutcome() async throws {
        let harness = try Harness()
        let client = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Ignore(.code(ShopError.outOfStock.errorCode))
            Recover(.code(ShopError.sold.errorCode), .fallback(1))
        }
        let errors: [ShopError] = [.outOfStock, .sold, .broken, .expired, .busy]
        var escalations = 0
        for error in errors {
            do { _ = try client.decide(error, operation: "x") } catch { escalations += 1 }
        }
        #expect(harness.recorder.records.count == errors.count)
        #expect(escalations == 3)
    }
}
