import AxiomPluginKit

// Rendio, the video-generation app: one code per error category, keyed by the app's own i18n keys
// (error.<category>.<specific>), presented by the app's rules per category: validation inline for 2 s,
// network as a 3 s banner, credit as a modal until dismissed, API as a 4 s banner, auth full screen, the
// rest as a 3 s toast.

let rendioPlugin = PluginExport {
    var plugin = PluginDefinition(id: "dev.axiom.plugins.rendio", version: "1.0.0", domains: ["rendio"], codes: [])
    plugin.add(
        CodeDefinition(
            "rendio", "emptyPrompt", category: .validation, severity: .info,
            messageKey: "error.validation.empty_prompt",
            presentation: PresentationRule(style: .inline, duration: .seconds(2), feedback: .none), isSensitive: true),
        texts: [
            "en": .init(title: "Prompt Needed", message: "Write a prompt first, then generate your video."),
            "tr": .init(title: "İstem Gerekli", message: "Önce bir istem yazın, ardından videonuzu oluşturun."),
        ])
    plugin.add(
        CodeDefinition(
            "rendio", "networkTimeout", category: .network, severity: .warning, disposition: .recover,
            retry: RetryPolicy(
                maxAttempts: 3, backoff: .exponential, delay: .seconds(1), maxDelay: .seconds(8), jitter: true),
            messageKey: "error.network.timeout",
            presentation: PresentationRule(style: .banner, duration: .seconds(3), feedback: .medium)),
        texts: [
            "en": .init(
                title: "Connection Timed Out", message: "The server took too long to answer.", recovery: "Try Again"),
            "tr": .init(title: "Bağlantı Zaman Aşımı", message: "Sunucu çok geç yanıt verdi.", recovery: "Tekrar Dene"),
        ])
    plugin.add(
        CodeDefinition(
            "rendio", "apiFailed", category: .api, severity: .error, disposition: .recover,
            retry: RetryPolicy(maxAttempts: 2, backoff: .constant, delay: .seconds(2), maxDelay: .seconds(2)),
            messageKey: "error.api.failed",
            presentation: PresentationRule(style: .banner, duration: .seconds(4), feedback: .error)),
        texts: [
            "en": .init(
                title: "Generation Failed", message: "The video service could not finish the request.",
                recovery: "Try Again"),
            "tr": .init(
                title: "Oluşturma Başarısız", message: "Video hizmeti isteği tamamlayamadı.", recovery: "Tekrar Dene"),
        ])
    plugin.add(
        CodeDefinition(
            "rendio", "insufficientCredits", category: .credit, severity: .warning,
            messageKey: "error.credit.insufficient",
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error)),
        texts: [
            "en": .init(
                title: "Out of Credits", message: "This video needs more credits than you have.",
                recovery: "Get Credits"),
            "tr": .init(title: "Kredi Yetersiz", message: "Bu video için yeterli krediniz yok.", recovery: "Kredi Al"),
        ])
    plugin.add(
        CodeDefinition(
            "rendio", "invalidDevice", category: .auth, severity: .error, messageKey: "error.auth.device_invalid",
            presentation: PresentationRule(style: .fullScreen, duration: nil, feedback: .error), isSensitive: true),
        texts: [
            "en": .init(
                title: "Device Not Verified", message: "This device could not be verified, so generation is turned off."
            ),
            "tr": .init(title: "Cihaz Doğrulanamadı", message: "Bu cihaz doğrulanamadığı için oluşturma kapalı."),
        ])
    plugin.add(
        CodeDefinition(
            "rendio", "unknown", category: .general, severity: .error, messageKey: "error.general.unexpected",
            presentation: PresentationRule(style: .toast, duration: .seconds(3), feedback: .light)),
        texts: [
            "en": .init(title: "Something Went Wrong", message: "An unexpected error occurred. Please try again."),
            "tr": .init(title: "Bir Sorun Oluştu", message: "Beklenmeyen bir hata oluştu. Lütfen tekrar deneyin."),
        ])
    return plugin
}

/// The entry the host looks up with dlsym.
@_cdecl("axiom_plugin_entry_v1")
public func axiomPluginEntry() -> UnsafePointer<axiom_plugin_descriptor> { rendioPlugin.descriptor }
