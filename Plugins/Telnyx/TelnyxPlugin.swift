import AxiomPluginKit

// The Telnyx WebRTC calling SDK: signalling errors (JSON-RPC codes -32000…-32004 as numeric aliases), local
// and socket errors, and call termination causes, each aliased by its Q.850 cause code and its SIP status.
//
// Gateway registration is retried 3 times, 3 s apart, as the SDK does; when that is exhausted the client
// reports GATEWAY_NOT_REGISTERED, which the application retries once more after 5 s.

let telnyxPlugin = PluginExport {
    var plugin = PluginDefinition(id: "dev.axiom.plugins.telnyx", version: "1.0.0", domains: ["telnyx"], codes: [])
    let registration = Retry(maxAttempts: 3, backoff: .constant, delay: .seconds(3), maxDelay: .seconds(3))
    let banner = Presentation(.banner, duration: .seconds(3), feedback: .medium)
    let alert = Presentation(.modal, duration: nil, feedback: .error)
    func add(
        _ code: String, _ aliases: [Int] = [], _ category: Category, _ severity: Severity, _ disposition: Disposition,
        retry: Retry? = nil, presentation: Presentation?, sensitive: Bool = false, en: Texts, tr: Texts
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
        en: Texts(
            title: "Sign-In Failed", message: "The calling service did not accept the login token.",
            recovery: "Sign In Again"),
        tr: Texts(
            title: "Oturum Açılamadı", message: "Arama hizmeti oturum belirtecini kabul etmedi.",
            recovery: "Yeniden Oturum Aç"))
    add(
        "CREDENTIAL_REGISTRATION_ERROR", [-32001], .auth, .error, .handle, presentation: alert, sensitive: true,
        en: Texts(
            title: "Sign-In Failed", message: "The calling service did not accept the username or password.",
            recovery: "Check Credentials"),
        tr: Texts(
            title: "Oturum Açılamadı", message: "Arama hizmeti kullanıcı adını ya da parolayı kabul etmedi.",
            recovery: "Bilgileri Kontrol Et"))
    add(
        "CODEC_ERROR", [-32002], .api, .error, .handle, presentation: banner,
        en: Texts(title: "Audio Problem", message: "The call could not agree on an audio or video format."),
        tr: Texts(title: "Ses Sorunu", message: "Arama için ortak bir ses ya da görüntü biçimi bulunamadı."))
    add(
        "GATEWAY_REGISTRATION_TIMEOUT", [-32003], .network, .warning, .recover, retry: registration,
        presentation: banner,
        en: Texts(
            title: "Still Connecting", message: "Registering with the calling gateway is taking too long. Retrying.",
            recovery: "Retry"),
        tr: Texts(
            title: "Bağlanılıyor", message: "Arama ağ geçidine kayıt çok uzun sürüyor. Yeniden deneniyor.",
            recovery: "Yeniden Dene"))
    add(
        "GATEWAY_REGISTRATION_FAILED", [-32004], .api, .error, .recover, retry: registration, presentation: banner,
        en: Texts(
            title: "Cannot Connect", message: "The calling gateway refused the registration. Retrying.",
            recovery: "Retry"),
        tr: Texts(
            title: "Bağlanılamıyor", message: "Arama ağ geçidi kaydı reddetti. Yeniden deneniyor.",
            recovery: "Yeniden Dene"))
    add(
        "CALL_NOT_FOUND", [], .state, .warning, .handle,
        presentation: Presentation(.toast, duration: .seconds(3), feedback: .light),
        en: Texts(title: "Call Not Found", message: "That call no longer exists."),
        tr: Texts(title: "Arama Bulunamadı", message: "Bu arama artık mevcut değil."))
    add(
        "GATEWAY_NOT_REGISTERED", [], .network, .error, .recover,
        retry: Retry(maxAttempts: 2, backoff: .constant, delay: .seconds(5), maxDelay: .seconds(5)),
        presentation: alert,
        en: Texts(
            title: "Calling Unavailable", message: "The app could not register for calls after several attempts.",
            recovery: "Reconnect"),
        tr: Texts(
            title: "Arama Kullanılamıyor", message: "Uygulama birkaç denemeden sonra aramalar için kaydolamadı.",
            recovery: "Yeniden Bağlan"))

    // Local and socket errors.
    add(
        "CLIENT_CONFIGURATION_FAILED", [], .configuration, .error, .handle, presentation: alert,
        en: Texts(title: "Setup Incomplete", message: "Calling is missing a login token or credentials."),
        tr: Texts(title: "Kurulum Eksik", message: "Arama için oturum belirteci ya da kimlik bilgileri eksik."))
    add(
        "CALL_FAILED", [], .state, .error, .handle, presentation: banner,
        en: Texts(title: "Call Failed", message: "The call could not start: no number to dial or no session."),
        tr: Texts(title: "Arama Başarısız", message: "Arama başlatılamadı: aranacak numara ya da oturum yok."))
    add(
        "SOCKET_NOT_CONNECTED", [], .network, .warning, .recover,
        retry: Retry(maxAttempts: 3, backoff: .exponential, delay: .seconds(1), maxDelay: .seconds(8)),
        presentation: banner,
        en: Texts(title: "Offline", message: "There is no connection to the calling service.", recovery: "Retry"),
        tr: Texts(title: "Çevrimdışı", message: "Arama hizmetine bağlantı yok.", recovery: "Yeniden Dene"))
    add(
        "SOCKET_CANCELLED", [], .cancellation, .debug, .ignore, presentation: nil,
        en: Texts(title: "Connection Closed", message: "The connection to the calling service was closed."),
        tr: Texts(title: "Bağlantı Kapandı", message: "Arama hizmetine olan bağlantı kapatıldı."))

    // Call termination causes: Q.850 cause code first, then SIP statuses.
    add(
        "UNALLOCATED_NUMBER", [1, 404], .validation, .warning, .handle, presentation: banner,
        en: Texts(
            title: "Number Not Found", message: "The number you dialled does not exist.", recovery: "Check Number"),
        tr: Texts(
            title: "Numara Bulunamadı", message: "Aradığınız numara mevcut değil.", recovery: "Numarayı Kontrol Et"))
    add(
        "NORMAL_CLEARING", [16], .general, .debug, .ignore, presentation: nil,
        en: Texts(title: "Call Ended", message: "The call ended normally."),
        tr: Texts(title: "Arama Bitti", message: "Arama olağan şekilde sona erdi."))
    add(
        "USER_BUSY", [17, 486], .api, .info, .handle,
        presentation: Presentation(.toast, duration: .seconds(3), feedback: .light),
        en: Texts(title: "Busy", message: "The person you are calling is busy.", recovery: "Call Again"),
        tr: Texts(title: "Meşgul", message: "Aradığınız kişi meşgul.", recovery: "Yeniden Ara"))
    add(
        "CALL_REJECTED", [21, 403, 603], .api, .warning, .handle, presentation: banner,
        en: Texts(title: "Call Rejected", message: "The call was declined or not permitted to that destination."),
        tr: Texts(title: "Arama Reddedildi", message: "Arama reddedildi ya da bu hedefe izin verilmiyor."))
    return plugin
}

/// The entry the host looks up with dlsym.
@_cdecl("axiom_plugin_entry_v1")
public func axiomPluginEntry() -> UnsafePointer<axiom_plugin_descriptor> { telnyxPlugin.descriptor }
