import Axiom
import AxiomTesting
import Testing

/// What an error event keeps, and for how long.
@Suite("Error events")
struct EventLifetimeTests {
    @Test("an event outlives the registry that resolved it: its descriptor and identity stay readable")
    func eventOutlivesRegistry() throws {
        weak var freed: ErrorRegistry?
        func makeEvent() throws -> ErrorEvent {
            let registry = ErrorRegistry()
            freed = registry
            try registry.register(ShopError.catalog)
            return ErrorEvent(error: ShopError.busy, layer: .client, operation: "restock", registry: registry)
        }
        let event = try makeEvent()
        #expect(freed == nil, "the event keeps the registry alive")
        #expect(event.descriptor.code == ShopError.busy.errorCode)
        #expect(event.descriptor.numericCode == 503)
        #expect(event.descriptor.retry?.maxAttempts == 3)
        #expect(event.identity.code == ShopError.busy.errorCode)
        #expect(event.code == ShopError.busy.errorCode)
        #expect(event.category == .network)
    }

    @Test("the identity is read from the error itself, including a Retry-After it carries")
    func identityIsReadFromTheError() throws {
        struct Throttled: IdentifiableError {
            let seconds: Int64
            var errorCode: ErrorCode { ErrorCode("shop", "BUSY") }
            var retryAfter: Duration? { .seconds(seconds) }
        }
        let harness = try Harness()
        let event = ErrorEvent(
            error: Throttled(seconds: 7), layer: .client, operation: "restock", registry: harness.registry)
        #expect(event.identity == ErrorIdentity(code: ShopError.busy.errorCode, retryAfter: .seconds(7)))
        #expect(event.descriptor.code == ShopError.busy.errorCode)
    }

    @Test("an escalated error given to an event is unwrapped to the error it carries")
    func escalatedErrorIsUnwrapped() throws {
        let harness = try Harness()
        let client = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Escalate(.any)
        }
        let escalated = try #require(
            #expect(throws: EscalatedError.self) { try client.decide(ShopError.broken, operation: "buy") })
        let event = ErrorEvent(error: escalated, layer: .context, operation: "buy", registry: harness.registry)
        #expect(event.error is ShopError)
        #expect(event.code == ShopError.broken.errorCode)
        #expect(harness.registry.descriptor(for: escalated).code == ShopError.broken.errorCode)
    }

    @Test("an event starts at attempt 1 unless told otherwise, and keeps what it was given")
    func attemptsAndMetadata() throws {
        let harness = try Harness()
        let first = ErrorEvent(error: ShopError.busy, layer: .client, operation: "x", registry: harness.registry)
        #expect(first.attempt == 1)
        #expect(first.metadata.isEmpty)
        let third = ErrorEvent(
            error: ShopError.busy, layer: .client, operation: "x", attempt: 3, metadata: ["order": "42"],
            registry: harness.registry)
        #expect(third.attempt == 3)
        #expect(third.metadata == ["order": "42"])
    }

    @Test("layers with the same name are the same layer; names are kept as given")
    func layersAreInterned() {
        let billing = Layer("billing")
        #expect(billing == Layer("billing"))
        #expect(billing != Layer("shipping"))
        #expect(billing.name == "billing")
        #expect(Layer("client") == .client)
        #expect(Set([billing, Layer("billing"), .client, .context]).count == 3)
        #expect("\(Layer.application)" == "application")
    }

    @Test("every handler that throws is recorded on the event, in order, and the next one decides")
    func everyHandlerFailureIsKept() throws {
        struct Boom: Error, Equatable { let id: Int }
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            Handle(.any) { _ in throw Boom(id: 1) }
            Recover(.any, Recover.Strategy { _ in throw Boom(id: 2) })
            Ignore(.any)
        }
        let outcome = try pipeline.decide(ShopError.broken, operation: "x")
        #expect(outcome.disposition == .ignore)
        #expect(outcome.event?.handlerFailures.map { $0.error as? Boom } == [Boom(id: 1), Boom(id: 2)])
        #expect(outcome.event?.handlerFailures.map(\.handler) == ["Handle", "Recover"])
        #expect((outcome.event?.error as? ShopError) == .broken)
    }

    @Test("a composed handler asked directly throws what its parts threw when none of them decided")
    func composedDecideRethrows() throws {
        struct Boom: Error {}
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            Handle(.any) { _ in throw Boom() }
            Ignore(.code(ShopError.sold.errorCode))
        }
        let event = ErrorEvent(error: ShopError.broken, layer: .application, operation: "x", registry: harness.registry)
        #expect(throws: Boom.self) { try pipeline.handlers.decide(event) }
        let sold = ErrorEvent(error: ShopError.sold, layer: .application, operation: "x", registry: harness.registry)
        #expect(try pipeline.handlers.decide(sold).isIgnore)
    }

    @Test("an outcome of handle carries its event, its disposition and any fallback value")
    func errorOutcomeAccessors() throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: harness.configuration) {
            Ignore(.code(ShopError.outOfStock.errorCode))
            Recover(.code(ShopError.sold.errorCode), .fallback(["cached"]))
        }
        let ignored = try pipeline.decide(ShopError.outOfStock, operation: "browse")
        #expect(ignored.disposition == .ignore)
        #expect(ignored.value == nil)
        #expect(ignored.event?.operation == "browse")
        let recovered = try pipeline.decide(ShopError.sold, operation: "browse")
        #expect(recovered.disposition == .recover)
        #expect(recovered.value as? [String] == ["cached"])
        let handled = try pipeline.decide(ShopError.broken, operation: "browse")
        #expect(handled.disposition == .handle)
        #expect(handled.event?.layer == .application)
        #expect(harness.recorder.dispositions == [.ignore, .recover, .handle])
    }
}

extension ErrorDecision {
    fileprivate var isIgnore: Bool {
        if case .ignore = self { return true }
        return false
    }
}
