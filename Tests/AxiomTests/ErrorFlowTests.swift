import Axiom
import AxiomTesting
import InMemoryLogging
import Logging
import Testing

// The payment-methods screen: errors flow from repositories (client layer) through the use case
// (context layer) to the presentation (application layer). A wallet failure is logged and skipped;
// only an empty result is an error the user sees.

enum WalletRepositoryError: IdentifiableError {
    enum ReviewState: Sendable { case pending, beingProcessed }
    case noWalletFound, banned, inReview(ReviewState)

    var errorCode: ErrorCode {
        switch self {
        case .noWalletFound: ErrorCode("flow.payments", "noWalletFound")
        case .banned: ErrorCode("flow.payments", "banned")
        case .inReview: ErrorCode("flow.payments", "inReview")
        }
    }
}

struct PaymentServiceUnavailable: IdentifiableError {
    var errorCode: ErrorCode { ErrorCode("flow.payments", "serviceUnavailable") }
}

enum PaymentUseCaseError: IdentifiableError {
    case noPaymentMethodsFound
    var errorCode: ErrorCode { ErrorCode("flow.payments", "noPaymentMethodsFound") }
}

struct PaymentMethodsFlow: Sendable {
    typealias Source = @Sendable () async throws -> [String]

    static let catalog = ErrorCatalog(
        source: "test.flow", domains: ["flow.payments"],
        descriptors: [
            ErrorDescriptor(code: WalletRepositoryError.noWalletFound.errorCode, category: .api, severity: .info),
            ErrorDescriptor(code: WalletRepositoryError.banned.errorCode, category: .auth),
            ErrorDescriptor(
                code: WalletRepositoryError.inReview(.pending).errorCode, category: .api, severity: .info),
            ErrorDescriptor(code: PaymentServiceUnavailable().errorCode, category: .network, severity: .warning),
            ErrorDescriptor(code: PaymentUseCaseError.noPaymentMethodsFound.errorCode, category: .api),
        ])

    let configuration: PipelineConfiguration
    let sources: [(name: String, fetch: Source)]
    let shown = RecordingObserver()

    // Repositories cannot decide anything: whatever fails goes to the use case.
    var repositories: ErrorPipeline<some ErrorHandler> {
        ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) {}
    }

    func paymentMethods() async throws -> [String] {
        // The use case skips a method whose source failed; the log keeps the failure.
        let context = ErrorPipeline(layer: .context, escalatesTo: .application, configuration: configuration) {
            Ignore(.type(WalletRepositoryError.self))
            Ignore(.type(PaymentServiceUnavailable.self))
        }
        var methods: [String] = []
        for source in sources {
            let outcome = try await context.run(source.name) {
                try await repositories.run(source.name) { try await source.fetch() }.value ?? []
            }
            methods += outcome.value ?? []
        }
        guard !methods.isEmpty else { throw PaymentUseCaseError.noPaymentMethodsFound }
        return methods
    }

    /// What the screen shows: the methods, or the error a default handler presented.
    func screen() async throws -> Outcome<[String]> {
        let presentation = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: configuration) {
            Handle { event in shown.observe(event, disposition: .handle) }
        }
        return try await presentation.run("showPaymentMethods") { try await paymentMethods() }
    }
}

@Suite("Error flow across layers")
struct ErrorFlowTests {
    func setUp(
        wallet: @escaping PaymentMethodsFlow.Source, cards: @escaping PaymentMethodsFlow.Source,
        bank: @escaping PaymentMethodsFlow.Source
    ) throws -> (PaymentMethodsFlow, RecordingObserver, InMemoryLogHandler) {
        let registry = ErrorRegistry()
        try registry.register(PaymentMethodsFlow.catalog)
        let recorder = RecordingObserver()
        var logs = InMemoryLogHandler()
        logs.logLevel = .trace
        let captured = logs
        let logger = Logger(label: "test") { _ in captured }
        let configuration = PipelineConfiguration(
            registry: registry, observers: [recorder, LoggingObserver(logger: logger)], clock: ManualClock())
        let flow = PaymentMethodsFlow(
            configuration: configuration, sources: [("wallet", wallet), ("cards", cards), ("bank", bank)])
        return (flow, recorder, logs)
    }

    @Test("a failing wallet is logged and skipped; the other methods are returned")
    func walletSkipped() async throws {
        let (flow, recorder, logs) = try setUp(
            wallet: { throw WalletRepositoryError.inReview(.pending) },
            cards: { ["visa •••• 4242"] },
            bank: { ["bank transfer"] })
        let outcome = try await flow.screen()
        #expect(outcome.value == ["visa •••• 4242", "bank transfer"])
        #expect(flow.shown.records.isEmpty)
        #expect(recorder.dispositions == [.escalate, .ignore])
        let skipped = try #require(logs.entries.last)
        #expect(skipped.metadata["code"] == "flow.payments/inReview")
        #expect(skipped.metadata["layer"] == "context")
        #expect(skipped.metadata["disposition"] == "ignore")
        #expect(skipped.metadata["escalatedFrom"] == "client")
    }

    @Test("when every source fails, noPaymentMethodsFound reaches the presentation layer")
    func everythingFails() async throws {
        let (flow, recorder, _) = try setUp(
            wallet: { throw WalletRepositoryError.noWalletFound },
            cards: { throw PaymentServiceUnavailable() },
            bank: { throw WalletRepositoryError.banned })
        let outcome = try await flow.screen()
        #expect(outcome.disposition == .handle)
        #expect(outcome.value == nil)
        #expect(flow.shown.records.map(\.event.code) == [PaymentUseCaseError.noPaymentMethodsFound.errorCode])
        #expect(flow.shown.records.first?.event.layer == .application)
        // Three sources escalated then ignored, and the final error handled: one outcome per event.
        #expect(recorder.dispositions.filter { $0 == .ignore }.count == 3)
        #expect(recorder.dispositions.last == .handle)
        #expect(recorder.records.count == 7)
    }
}
