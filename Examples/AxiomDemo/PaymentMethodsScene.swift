import Axiom

/// The payment-methods screen: three sources (wallet, cards, a payment service). A source that fails is
/// skipped as the payment-methods plugin's descriptors say; only an empty list reaches the user.
struct PaymentMethodsScene {
    let configuration: PipelineConfiguration

    typealias Source = (name: String, fetch: @Sendable () async throws -> [String])

    func run() async {
        Transcript.section("Listing payment methods (errors flow client → context → application)")
        guard configuration.registry.source(ofDomain: "payment-methods") != nil else {
            Transcript.line("skipped: the payment-methods plugin is not loaded")
            return
        }
        let failing: [Source] = [
            ("wallet", { throw DomainError(domain: "payment-methods", code: "inReview") }),
            ("cards", { ["visa •••• 4242"] }),
            ("payment service", { throw DomainError(domain: "payment-methods", code: "serviceNotAvailable") }),
        ]
        await show("with cards on file", failing)
        let empty: [Source] = [
            ("wallet", { throw DomainError(domain: "payment-methods", code: "noWalletFound") }),
            ("cards", { [] }),
            ("payment service", { throw DomainError(domain: "payment-methods", code: "serviceNotAvailable") }),
        ]
        await show("with nothing usable", empty)
    }

    private func show(_ label: String, _ sources: [Source]) async {
        Transcript.line("— \(label):")
        let repositories = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) {}
        let useCase = ErrorPipeline(layer: .context, escalatesTo: .application, configuration: configuration) {
            FollowDescriptor()
        }
        let screen = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: configuration) {
            Handle { event in Presenter.show(event) }
        }
        let outcome = try? await screen.run("showPaymentMethods") { () async throws -> [String] in
            var methods: [String] = []
            for source in sources {
                let found = try await useCase.run("fetch \(source.name)") {
                    try await repositories.run("fetch \(source.name)") { try await source.fetch() }.value ?? []
                }
                methods += found.value ?? []
            }
            guard !methods.isEmpty else { throw DomainError(domain: "payment-methods", code: "noPaymentMethodsFound") }
            return methods
        }
        if let outcome { Transcript.outcome("   screen", outcome) }
    }
}
