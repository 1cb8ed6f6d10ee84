import AxiomPluginKit

// The Telnyx WebRTC calling SDK: signalling errors (JSON-RPC codes -32000…-32004 as numeric aliases), local
// and socket errors, and call termination causes, each aliased by its Q.850 cause code and its SIP status.
//
// Gateway registration is retried 3 times, 3 s apart, as the SDK does; when that is exhausted the client
// reports GATEWAY_NOT_REGISTERED, which the application retries once more after 5 s.

let telnyxPlugin = PluginExport {
    var plugin = PluginDefinition(id: "dev.axiom.plugins.telnyx", version: "1.0.0", domains: ["telnyx"], codes: [])
    let registration = RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(3), maxDelay: .seconds(3))
    let banner = PresentationRule(style: .banner, duration: .seconds(3), feedback: .medium)
    let alert = PresentationRule(style: .modal, duration: nil, feedback: .error)
    func add(
        _ code: String, _ aliases: [Int] = [], _ category: ErrorCategory, _ severity: ErrorSeverity,
        _ disposition: Disposition,
        retry: RetryPolicy? = nil, presentation: PresentationRule?, sensitive: Bool = false, en: CodeDefinition.Texts,
        tr: CodeDefinition.Texts
    ) {
        plugin.add(
            CodeDefinition(
                "telnyx", code, numericAliases: aliases, category: category, severity: severity,
                disposition: disposition, retry: retry, presentation: presentation, isSensitive: sensitive),
            texts: ["en": en, "tr": tr])
    }

    // Signalling server errors.
    add(
        "TOKEN_REGISTRATION_ERROR", [-32000], .auth, .error, .handle, presentation: alert, sensitive: true,
        en: .init(
            title: "Sign-In Failed", message: "The calling service did not accept the login token.",
            recovery: "Sign In Again"),
        tr: .init(
            title: "Oturum Açılamadı", message: "Arama hizmeti oturum belirtecini kabul etmedi.",
            recovery: "Yeniden Oturum Aç"))
    add(
        "CREDENTIAL_REGISTRATION_ERROR", [-32001], .auth, .error, .handle, presentation: alert, sensitive: true,
        en: .init(
            title: "Sign-In Failed", message: "The calling service did not accept the username or password.",
            recovery: "Check Credentials"),
        tr: .init(
            title: "Oturum Açılamadı", message: "Arama hizmeti kullanıcı adını ya da parolayı kabul etmedi.",
            recovery: "Bilgileri Kontrol Et"))
    add(
        "CODEC_ERROR", [-32002], .api, .error, .handle, presentation: banner,
        en: .init(title: "Audio Problem", message: "The call could not agree on an audio or video format."),
        tr: .init(title: "Ses Sorunu", message: "Arama için ortak bir ses ya da görüntü biçimi bulunamadı."))
    add(
        "GATEWAY_REGISTRATION_TIMEOUT", [-32003], .network, .warning, .recover, retry: registration,
        presentation: banner,
        en: .init(
            title: "Still Connecting", message: "Registering with the calling gateway is taking too long. Retrying.",
            recovery: "Retry"),
        tr: .init(
            title: "Bağlanılıyor", message: "Arama ağ geçidine kayıt çok uzun sürüyor. Yeniden deneniyor.",
            recovery: "Yeniden Dene"))
    add(
        "GATEWAY_REGISTRATION_FAILED", [-32004], .api, .error, .recover, retry: registration, presentation: banner,
        en: .init(
            title: "Cannot Connect", message: "The calling gateway refused the registration. Retrying.",
            recovery: "Retry"),
        tr: .init(
            title: "Bağlanılamıyor", message: "Arama ağ geçidi kaydı reddetti. Yeniden deneniyor.",
            recovery: "Yeniden Dene"))
    add(
        "CALL_NOT_FOUND", [], .state, .warning, .handle,
        presentation: PresentationRule(style: .toast, duration: .seconds(3), feedback: .light),
        en: .init(title: "Call Not Found", message: "That call no longer exists."),
        tr: .init(title: "Arama Bulunamadı", message: "Bu arama artık mevcut değil."))
    add(
        "GATEWAY_NOT_REGISTERED", [], .network, .error, .recover,
        retry: RetryPolicy(maxAttempts: 2, backoff: .constant, delay: .seconds(5), maxDelay: .seconds(5)),
        presentation: alert,
        en: .init(
            title: "Calling Unavailable", message: "The app could not register for calls after several attempts.",
            recovery: "Reconnect"),
        tr: .init(
            title: "Arama Kullanılamıyor", message: "Uygulama birkaç denemeden sonra aramalar için kaydolamadı.",
            recovery: "Yeniden Bağlan"))

    // Local and socket errors.
    add(
        "CLIENT_CONFIGURATION_FAILED", [], .configuration, .error, .handle, presentation: alert,
        en: .init(title: "Setup Incomplete", message: "Calling is missing a login token or credentials."),
        tr: .init(title: "Kurulum Eksik", message: "Arama için oturum belirteci ya da kimlik bilgileri eksik."))
    add(
        "CALL_FAILED", [], .state, .error, .handle, presentation: banner,
        en: .init(title: "Call Failed", message: "The call could not start: no number to dial or no session."),
        tr: .init(title: "Arama Başarısız", message: "Arama başlatılamadı: aranacak numara ya da oturum yok."))
    add(
        "SOCKET_NOT_CONNECTED", [], .network, .warning, .recover,
        retry: RetryPolicy(maxAttempts: 3, backoff: .exponential, delay: .seconds(1), maxDelay: .seconds(8)),
        presentation: banner,
        en: .init(title: "Offline", message: "There is no connection to the calling service.", recovery: "Retry"),
        tr: .init(title: "Çevrimdışı", message: "Arama hizmetine bağlantı yok.", recovery: "Yeniden Dene"))
    add(
        "SOCKET_CANCELLED", [], .cancellation, .debug, .ignore, presentation: nil,
        en: .init(title: "Connection Closed", message: "The connection to the calling service was closed."),
        tr: .init(title: "Bağlantı Kapandı", message: "Arama hizmetine olan bağlantı kapatıldı."))

    // Call termination causes: Q.850 cause code first, then SIP statuses.
    add(
        "UNALLOCATED_NUMBER", [1, 404], .validation, .warning, .handle, presentation: banner,
        en: .init(
            title: "Number Not Found", message: "The number you dialled does not exist.", recovery: "Check Number"),
        tr: .init(
            title: "Numara Bulunamadı", message: "Aradığınız numara mevcut değil.", recovery: "Numarayı Kontrol Et"))
    add(
        "NORMAL_CLEARING", [16], .general, .debug, .ignore, presentation: nil,
        en: .init(title: "Call Ended", message: "The call ended normally."),
        tr: .init(title: "Arama Bitti", message: "Arama olağan şekilde sona erdi."))
    add(
        "USER_BUSY", [17, 486], .api, .info, .handle,
        presentation: PresentationRule(style: .toast, duration: .seconds(3), feedback: .light),
        en: .init(title: "Busy", message: "The person you are calling is busy.", recovery: "Call Again"),
        tr: .init(title: "Meşgul", message: "Aradığınız kişi meşgul.", recovery: "Yeniden Ara"))
    add(
        "CALL_REJECTED", [21, 403, 603], .api, .warning, .handle, presentation: banner,
        en: .init(title: "Call Rejected", message: "The call was declined or not permitted to that destination."),
        tr: .init(title: "Arama Reddedildi", message: "Arama reddedildi ya da bu hedefe izin verilmiyor."))
    return plugin
}

/// The entry the host looks up with dlsym.
@_cdecl("axiom_plugin_entry_v1")
public func axiomPluginEntry() -> UnsafePointer<axiom_plugin_descriptor> { telnyxPlugin.descriptor }
