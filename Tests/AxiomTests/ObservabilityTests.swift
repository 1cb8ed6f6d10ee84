import Axiom
import AxiomTesting
import InMemoryLogging
import Logging
import MetricsTestKit
import Testing

@Suite("Observability")
struct ObservabilityTests {
    /// A pipeline over the shop's catalog that ignores `outOfStock` and handles the rest, logged to `logger`.
    func shopPipeline(loggingTo logger: Logger) throws -> ErrorPipeline<some ErrorHandler> {
        let registry = ErrorRegistry()
        try registry.register(ShopError.catalog)
        return ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [LoggingObserver(logger: logger)])
        ) {
            Ignore(.code(ShopError.outOfStock.errorCode))
            Handle()
        }
    }

    @Test("each outcome is logged once with code, category, layer and disposition as metadata")
    func logging() throws {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        let captured = handler
        let pipeline = try shopPipeline(loggingTo: Logger(label: "errors") { _ in captured })
        _ = try pipeline.decide(ShopError.outOfStock, operation: "browse")
        _ = try pipeline.decide(ShopError.broken, operation: "checkout", metadata: ["order": "42"])

        let entries = handler.entries
        #expect(entries.count == 2)
        #expect(entries[0].level == .debug)
        #expect(entries[0].metadata["disposition"] == "ignore")
        #expect(entries[1].level == .critical)
        #expect(entries[1].metadata["code"] == "shop/BROKEN")
        #expect(entries[1].metadata["category"] == "general")
        #expect(entries[1].metadata["layer"] == "application")
        #expect(entries[1].metadata["disposition"] == "handle")
        #expect(entries[1].metadata["operation"] == "checkout")
        #expect(entries[1].metadata["order"] == "42")
    }

    @Test("the logger's level, as set before the observer was made, decides which outcomes are written")
    func loggerLevelFilters() throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "errors") { _ in handler }
        logger.logLevel = .warning
        let pipeline = try shopPipeline(loggingTo: logger)
        // An ignore logs at debug, under the logger's warning: nothing written. A critical error is written.
        _ = try pipeline.decide(ShopError.outOfStock, operation: "browse")
        _ = try pipeline.decide(ShopError.broken, operation: "checkout")

        let entries = handler.entries
        #expect(entries.map(\.level) == [.critical])
        #expect(entries.first?.metadata["code"] == "shop/BROKEN")
    }

    @Test("a numeric alias is logged and counted under the canonical code it stands for")
    func numericAliasIsCanonical() throws {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.billing", domains: ["acme.billing"],
                descriptors: [
                    ErrorDescriptor(
                        code: ErrorCode("acme.billing", "GATEWAY_TIMEOUT"), numericAliases: [504], category: .network)
                ]))
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        let captured = handler
        let metrics = TestMetrics()
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: registry,
                observers: [
                    LoggingObserver(logger: Logger(label: "x") { _ in captured }), MetricsObserver(factory: metrics),
                ])
        ) { Handle() }
        _ = try pipeline.decide(DomainError(domain: "acme.billing", code: "504", message: "upstream"), operation: "pay")
        _ = try pipeline.decide(
            DomainError(domain: "acme.billing", code: "GATEWAY_TIMEOUT", message: "upstream"), operation: "pay")

        #expect(handler.entries.count == 2)
        for entry in handler.entries {
            #expect(entry.metadata["code"] == "acme.billing/GATEWAY_TIMEOUT")
            #expect(entry.metadata["domain"] == "acme.billing")
            #expect(!"\(entry.message)".contains("504"))
        }
        let counted = try metrics.expectCounter(
            MetricsObserver.label,
            [
                ("domain", "acme.billing"), ("code", "GATEWAY_TIMEOUT"), ("disposition", "handle"),
                ("layer", "application"),
            ])
        #expect(counted.totalValue == 2)
    }

    @Test("a sensitive descriptor's error text never reaches the log")
    func sensitivePayload() throws {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.secret", domains: ["vault"],
                descriptors: [ErrorDescriptor(code: ErrorCode("vault", "LEAK"), category: .auth, isSensitive: true)]))
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        let captured = handler
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: registry, observers: [LoggingObserver(logger: Logger(label: "x") { _ in captured })])
        ) {}
        _ = try pipeline.decide(DomainError(domain: "vault", code: "LEAK", message: "token=abc123"), operation: "open")
        #expect(handler.entries.count == 1)
        #expect(!"\(handler.entries)".contains("abc123"))
    }

    @Test("each outcome is counted by domain, code and disposition")
    func metrics() async throws {
        let registry = ErrorRegistry()
        try registry.register(ShopError.catalog)
        let metrics = TestMetrics()
        let configuration = PipelineConfiguration(registry: registry, observers: [MetricsObserver(factory: metrics)])
        let client = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) {
            Ignore(.code(ShopError.outOfStock.errorCode))
        }
        for _ in 0..<3 { _ = try client.decide(ShopError.outOfStock, operation: "browse") }
        #expect(throws: EscalatedError.self) { try client.decide(ShopError.broken, operation: "buy") }

        let ignored = try metrics.expectCounter(
            MetricsObserver.label,
            [("domain", "shop"), ("code", "OUT_OF_STOCK"), ("disposition", "ignore"), ("layer", "client")])
        #expect(ignored.totalValue == 3)
        let escalated = try metrics.expectCounter(
            MetricsObserver.label,
            [("domain", "shop"), ("code", "BROKEN"), ("disposition", "escalate"), ("layer", "client")])
        #expect(escalated.totalValue == 1)
    }

    @Test("a code built at run time counts in the same series as the same literal code; each layer has its own")
    func metricsForRuntimeCodes() async throws {
        let registry = ErrorRegistry()
        let metrics = TestMetrics()
        let configuration = PipelineConfiguration(registry: registry, observers: [MetricsObserver(factory: metrics)])
        let client = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) {
            Ignore(.domain(CapabilityError.domain))
        }
        let context = ErrorPipeline(layer: .context, escalatesTo: nil, configuration: configuration) {
            Ignore(.domain(CapabilityError.domain))
        }
        // The same code, once from literals and once from strings built at run time (too long to be stored
        // inline, so they are not immortal and take the locked path).
        let domain = ["axiom", "capability"].joined(separator: ".")
        let code = ["validation", "Timeout"].joined()
        #expect(domain.utf8.count > 15 && code.utf8.count > 15)
        let decoded = DomainError(domain: domain, code: code)
        for _ in 0..<2 { _ = try client.decide(CapabilityError.validationTimeout, operation: "probe") }
        _ = try client.decide(decoded, operation: "probe")
        _ = try context.decide(CapabilityError.validationTimeout, operation: "probe")
        _ = try context.decide(decoded, operation: "probe")

        let clientSeries = try metrics.expectCounter(
            MetricsObserver.label,
            [("domain", domain), ("code", code), ("disposition", "ignore"), ("layer", "client")])
        #expect(clientSeries.totalValue == 3)
        let contextSeries = try metrics.expectCounter(
            MetricsObserver.label,
            [("domain", domain), ("code", code), ("disposition", "ignore"), ("layer", "context")])
        #expect(contextSeries.totalValue == 2)
    }

    @Test("counting from many tasks at once loses no count, while new series are being created")
    func metricsUnderConcurrency() async throws {
        let registry = ErrorRegistry()
        try registry.register(ShopError.catalog)
        let metrics = TestMetrics()
        let configuration = PipelineConfiguration(registry: registry, observers: [MetricsObserver(factory: metrics)])
        let errors: [ShopError] = [.outOfStock, .busy, .expired, .broken, .sold]
        let layers = [Layer.client, .context, Layer("billing")]
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<150 {
                        let layer = layers[(task + round) % layers.count]
                        let pipeline = ErrorPipeline(layer: layer, escalatesTo: nil, configuration: configuration) {
                            Ignore(.any)
                        }
                        _ = try? pipeline.decide(errors[round % errors.count], operation: "load")
                    }
                }
            }
        }
        var total = 0
        for error in errors {
            for layer in layers {
                let counter = try metrics.expectCounter(
                    MetricsObserver.label,
                    [
                        ("domain", "shop"), ("code", error.errorCode.code), ("disposition", "ignore"),
                        ("layer", layer.name),
                    ])
                total += Int(counter.totalValue)
            }
        }
        #expect(total == 8 * 150)
    }

    @Test("a severe error carries the stack captured where it entered the pipeline")
    func stackCapture() throws {
        struct FixedStack: StackCapturer {
            func captureStack(skippingFrames: Int) -> CapturedStack? { CapturedStack(addresses: [0x1000, 0x2000]) }
        }
        let registry = ErrorRegistry()
        try registry.register(ShopError.catalog)
        let recorder = RecordingObserver()
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [recorder], stackCapturer: FixedStack())
        ) {}
        _ = try pipeline.decide(ShopError.broken, operation: "x")  // critical
        _ = try pipeline.decide(ShopError.sold, operation: "x")  // warning
        #expect(recorder.records.map { $0.event.stack?.addresses.count } == [2, nil])
    }
}
