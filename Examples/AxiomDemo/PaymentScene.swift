import Axiom
import Foundation

/// A wallet service that answers like an NWC wallet: a result, or a JSON error response.
actor WalletService {
    private var script: [String: [String?]]
    private(set) var connected = true

    /// `script[invoice]` lists the answers to successive attempts: nil is success, a string is an NWC code.
    init(script: [String: [String?]]) { self.script = script }

    func pay(_ invoice: String) throws -> String {
        guard connected else { throw try DomainError.decode(domain: "nwc", json: Self.body("UNAUTHORIZED", invoice)) }
        let answer = script[invoice]?.first ?? nil
        if script[invoice]?.isEmpty == false { script[invoice]?.removeFirst() }
        if let code = answer {
            if code == "UNAUTHORIZED" { connected = false }
            throw try DomainError.decode(domain: "nwc", json: Self.body(code, invoice))
        }
        return "preimage " + String(repeating: "ab", count: 32).prefix(16) + "…"
    }

    func reconnect() { connected = true }

    private static func body(_ code: String, _ invoice: String) -> Data {
        Data(#"{"result_type":"pay_invoice","error":{"code":"\#(code)","message":"cannot pay \#(invoice)"}}"#.utf8)
    }
}

/// Pays three invoices through a client layer and a context layer. Nothing here knows the NWC codes: the
/// nwc plugin's descriptors decide, through the generic handler.
struct PaymentScene {
    let configuration: PipelineConfiguration
    let clock: FastForwardClock

    static let invoices = [
        "lnbc2500n1pj9q7xzpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4js",
        "lnbc990000n1pj9q7xzpp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygsdq5xysxxatsyp3k7enx",
        "lnbc15000n1pj9q7xzpp5g9q5sqqqsyqcyq5rqwzqfqypqhxyrzwnrv9ngxy6rqwzqfqypqdq5xysxxatsyp3k7enxv4",
    ]

    func run() async {
        Transcript.section("Paying invoices (NWC errors decided by the nwc plugin's descriptors)")
        guard configuration.registry.source(ofDomain: "nwc") != nil else {
            Transcript.line("skipped: the nwc plugin is not loaded")
            return
        }
        let wallet = WalletService(script: [
            Self.invoices[0]: ["RATE_LIMITED", nil],
            Self.invoices[1]: ["INSUFFICIENT_BALANCE"],
            Self.invoices[2]: ["UNAUTHORIZED", nil],
        ])
        let client = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) {
            FollowDescriptor()
        }
        let reconnect = ErrorCode("nwc.connection", "RECONNECT")
        let context = ErrorPipeline(layer: .context, escalatesTo: .application, configuration: configuration) {
            Recover(.code(reconnect), .prepareThenRetry(maxAttempts: 2) { await wallet.reconnect() })
            FollowDescriptor()
        }
        let application = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: configuration) {
            Handle { event in Presenter.show(event) }
        }

        for (index, invoice) in Self.invoices.enumerated() {
            Transcript.line("— invoice \(index + 1): \(invoice.prefix(16))…")
            let started = clock.elapsed
            let outcome = try? await application.run("checkout") {
                try await context.run("payInvoice") {
                    try await client.run("pay_invoice") { try await wallet.pay(invoice) }.value ?? "not paid"
                }.value ?? "not paid"
            }
            if let outcome {
                Transcript.outcome("   checkout", outcome)
                let waited = clock.elapsed - started
                if waited > .zero { Transcript.line("   (waited \(waited) on the clock before retrying)") }
            }
        }
    }
}

/// Shows a handled error the way a user would see it, in English and Turkish.
enum Presenter {
    static func show(_ event: ErrorEvent) {
        for locale in ["en", "tr"] {
            let presentation = ErrorMapper(locale: locale).map(event)
            let duration = presentation.duration.map { "\($0)" } ?? "until dismissed"
            let action = presentation.recoverySuggestion.map { " [\($0)]" } ?? ""
            Transcript.line(
                "   \(locale) \(presentation.style.rawValue), \(duration), feedback \(presentation.feedback.rawValue): "
                    + "\(presentation.title) — \(presentation.message)\(action)")
        }
    }
}
