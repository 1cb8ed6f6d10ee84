import AxiomPluginKit

// The payment-methods error flow. While listing payment methods, a wallet that cannot be used and a payment
// service that is unavailable are expected: they are logged, counted and left out of the list (ignore). Only
// an empty list is an error the user sees, as the screen's empty state.
//
// A screen that needs the wallet itself (a wallet page) handles these codes with its own handlers.

let paymentMethodsPlugin = PluginExport {
    var plugin = PluginDefinition(
        id: "dev.axiom.plugins.payment-methods", version: "1.0.0", domains: ["payment-methods"], codes: [])
    func skipped(
        _ code: String, _ severity: ErrorSeverity, en: CodeDefinition.Texts, tr: CodeDefinition.Texts,
        category: ErrorCategory = .state
    ) {
        plugin.add(
            CodeDefinition("payment-methods", code, category: category, severity: severity, disposition: .ignore),
            texts: ["en": en, "tr": tr])
    }
    skipped(
        "noWalletFound", .debug,
        en: .init(title: "No Wallet", message: "You have no wallet yet.", recovery: "Create Wallet"),
        tr: .init(title: "Cüzdan Yok", message: "Henüz bir cüzdanınız yok.", recovery: "Cüzdan Oluştur"))
    skipped(
        "banned", .notice,
        en: .init(title: "Wallet Suspended", message: "Your wallet is suspended and cannot be used for payments."),
        tr: .init(title: "Cüzdan Askıda", message: "Cüzdanınız askıya alındı ve ödemelerde kullanılamaz."),
        category: .auth)
    skipped(
        "inReview", .info,
        en: .init(
            title: "Wallet In Review",
            message: "Your wallet is pending or being reviewed. It can be used once approved."),
        tr: .init(
            title: "Cüzdan İncelemede", message: "Cüzdanınız beklemede ya da inceleniyor. Onaylanınca kullanılabilir."))
    skipped(
        "serviceNotAvailable", .info,
        en: .init(
            title: "Payment Service Unavailable", message: "This payment service is not available on this device."),
        tr: .init(title: "Ödeme Hizmeti Kullanılamıyor", message: "Bu ödeme hizmeti bu cihazda kullanılamıyor."),
        category: .capability)
    plugin.add(
        CodeDefinition(
            "payment-methods", "noPaymentMethodsFound", category: .state, severity: .notice, disposition: .handle,
            presentation: PresentationRule(style: .inline, duration: nil, feedback: .none)),
        texts: [
            "en": .init(
                title: "No Payment Methods", message: "There is no way to pay yet. Add a card or set up a wallet.",
                recovery: "Add Payment Method"),
            "tr": .init(
                title: "Ödeme Yöntemi Yok", message: "Henüz ödeme yöntemi yok. Bir kart ekleyin ya da cüzdan kurun.",
                recovery: "Ödeme Yöntemi Ekle"),
        ])
    return plugin
}

/// The entry the host looks up with dlsym.
@_cdecl("axiom_plugin_entry_v1")
public func axiomPluginEntry() -> UnsafePointer<axiom_plugin_descriptor> { paymentMethodsPlugin.descriptor }
