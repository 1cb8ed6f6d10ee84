import AxiomPluginKit

// Nostr Wallet Connect payment errors: the ten NIP-47 codes a wallet service answers with.
//
// Recovery follows the wallet client's table: a rate limit is waited out (60 s) and retried; a missing
// balance is shown with "Add Funds"; a refused connection secret escalates to a wallet reconnect;
// INSUFFICIENT_BALANCE, UNAUTHORIZED and NOT_IMPLEMENTED are never retried; transient failures are retried
// with exponential backoff.

let nwcPlugin = PluginExport {
    var plugin = PluginDefinition(
        id: "dev.axiom.plugins.nwc", version: "1.0.0", domains: ["nwc", "nwc.connection"], codes: [])
    let transient = RetryPolicy(maxAttempts: 3, backoff: .exponential, delay: .seconds(1), maxDelay: .seconds(8))

    plugin.add(
        CodeDefinition(
            "nwc", "RATE_LIMITED", category: .api, severity: .warning, disposition: .recover,
            retry: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(60), maxDelay: .seconds(60)),
            presentation: PresentationRule(style: .banner, duration: .seconds(4), feedback: .light), httpStatus: 429),
        texts: [
            "en": .init(
                title: "Too Many Requests", message: "The wallet is limiting requests. Trying again in a minute.",
                recovery: "Wait"),
            "tr": .init(
                title: "Çok Fazla İstek", message: "Cüzdan istekleri sınırlıyor. Bir dakika sonra yeniden denenecek.",
                recovery: "Bekle"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "NOT_IMPLEMENTED", category: .capability, severity: .warning, disposition: .handle,
            presentation: PresentationRule(style: .banner, duration: .seconds(4), feedback: .light), httpStatus: 501),
        texts: [
            "en": .init(
                title: "Not Supported", message: "Your wallet does not offer this feature. Try another method.",
                recovery: "OK"),
            "tr": .init(
                title: "Desteklenmiyor", message: "Cüzdanınız bu özelliği sunmuyor. Başka bir yöntem deneyin.",
                recovery: "Tamam"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "INSUFFICIENT_BALANCE", category: .credit, severity: .warning, disposition: .handle,
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error), httpStatus: 402),
        texts: [
            "en": .init(
                title: "Insufficient Balance", message: "There are not enough funds in your wallet for this payment.",
                recovery: "Add Funds"),
            "tr": .init(
                title: "Yetersiz Bakiye", message: "Cüzdanınızda bu ödeme için yeterli bakiye yok.",
                recovery: "Bakiye Ekle"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "QUOTA_EXCEEDED", category: .credit, severity: .warning, disposition: .handle,
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error), httpStatus: 402),
        texts: [
            "en": .init(
                title: "Limit Reached",
                message: "This connection has used its spending budget. Wait for it to reset or raise the limit.",
                recovery: "Raise Limit"),
            "tr": .init(
                title: "Limit Doldu",
                message: "Bu bağlantının harcama bütçesi doldu. Sıfırlanmasını bekleyin ya da limiti yükseltin.",
                recovery: "Limiti Yükselt"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "RESTRICTED", category: .auth, severity: .warning, disposition: .handle,
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error), httpStatus: 403),
        texts: [
            "en": .init(
                title: "Not Permitted", message: "This wallet connection is not allowed to do that.",
                recovery: "Check Permissions"),
            "tr": .init(
                title: "İzin Yok", message: "Bu cüzdan bağlantısının bu işlem için izni yok.",
                recovery: "İzinleri Kontrol Et"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "UNAUTHORIZED", category: .auth, severity: .error, disposition: .escalate,
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error),
            escalation: ErrorCode("nwc.connection", "RECONNECT"), isSensitive: true, httpStatus: 401),
        texts: [
            "en": .init(
                title: "Connection Lost", message: "The wallet no longer accepts this connection.",
                recovery: "Reconnect"),
            "tr": .init(
                title: "Bağlantı Koptu", message: "Cüzdan bu bağlantıyı artık kabul etmiyor.",
                recovery: "Yeniden Bağlan"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "INTERNAL", category: .api, severity: .error, disposition: .recover, retry: transient,
            presentation: PresentationRule(style: .banner, duration: .seconds(4), feedback: .error), httpStatus: 502),
        texts: [
            "en": .init(
                title: "Wallet Error", message: "The wallet service ran into a problem of its own.",
                recovery: "Try Again"),
            "tr": .init(
                title: "Cüzdan Hatası", message: "Cüzdan hizmeti kendi tarafında bir sorunla karşılaştı.",
                recovery: "Yeniden Dene"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "PAYMENT_FAILED", category: .api, severity: .error, disposition: .recover, retry: transient,
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error), isSensitive: true),
        texts: [
            "en": .init(
                title: "Payment Failed",
                message: "The payment did not go through: no route was found or the invoice is not payable.",
                recovery: "Try Again"),
            "tr": .init(
                title: "Ödeme Başarısız",
                message: "Ödeme tamamlanamadı: rota bulunamadı ya da fatura ödenemiyor.",
                recovery: "Yeniden Dene"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "NOT_FOUND", category: .api, severity: .warning, disposition: .recover, retry: transient,
            presentation: PresentationRule(style: .banner, duration: .seconds(4), feedback: .light), httpStatus: 404),
        texts: [
            "en": .init(
                title: "Not Found", message: "The wallet could not find what was asked for, such as the invoice.",
                recovery: "Try Again"),
            "tr": .init(
                title: "Bulunamadı", message: "Cüzdan istenen kaydı, örneğin faturayı, bulamadı.",
                recovery: "Yeniden Dene"),
        ])
    plugin.add(
        CodeDefinition(
            "nwc", "OTHER", category: .general, severity: .error, disposition: .recover, retry: transient,
            presentation: PresentationRule(style: .toast, duration: .seconds(3), feedback: .light)),
        texts: [
            "en": .init(title: "Error", message: "The wallet reported an unexpected problem.", recovery: "Try Again"),
            "tr": .init(title: "Hata", message: "Cüzdan beklenmeyen bir sorun bildirdi.", recovery: "Yeniden Dene"),
        ])
    // What UNAUTHORIZED becomes when it is escalated: the context reconnects the wallet, then tries once more.
    plugin.add(
        CodeDefinition(
            "nwc.connection", "RECONNECT", category: .auth, severity: .warning, disposition: .recover,
            retry: RetryPolicy(maxAttempts: 2, backoff: .constant, delay: .seconds(1), honorsRetryAfter: false),
            presentation: PresentationRule(style: .banner, duration: .seconds(3), feedback: .medium)),
        texts: [
            "en": .init(
                title: "Reconnecting", message: "Reconnecting to your wallet.", recovery: "Reconnect"),
            "tr": .init(
                title: "Yeniden Bağlanılıyor", message: "Cüzdanınıza yeniden bağlanılıyor.",
                recovery: "Yeniden Bağlan"),
        ])
    return plugin
}

/// The entry the host looks up with dlsym.
@_cdecl("axiom_plugin_entry_v1")
public func axiomPluginEntry() -> UnsafePointer<axiom_plugin_descriptor> { nwcPlugin.descriptor }
