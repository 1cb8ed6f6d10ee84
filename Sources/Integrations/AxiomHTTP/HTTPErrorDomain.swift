#if HTTP
import Axiom

/// The domain `axiom.http`: the errors a server framework raises with a status of its own (Hummingbird's
/// `HTTPError`, Vapor's `Abort`: a route that does not exist, a body too large, one a route throws to answer with a
/// status), identified by their status, so that they are decided and answered like every other error, in the
/// client's language, whichever framework raised them. A status without a code of its own is `axiom.http/<status>`
/// all the same, decided with the domain's fallback (the registry's unknown code keeps the status through
/// ``ProblemResponder``). A peer's answer without a `code` is read back as this domain's code of its status.
public enum HTTPErrorDomain {
    /// The domain's name.
    public static let name = "axiom.http"

    /// The identity of an error raised with `status`: `axiom.http/<status>`.
    public static func code(status: Int) -> ErrorCode {
        (100..<600).contains(status) ? statusCodes[status - 100] : ErrorCode(name, String(status))
    }

    /// The codes of statuses 100 to 599, made once: a server adapter asks for the code of each error it answers
    /// (twice: to decide it, and for its event's identity), and formatting the number was most of the cost.
    private static let statusCodes = (100..<600).map { ErrorCode(name, String($0)) }

    /// The statuses with codes, texts and fates.
    package static let domain = BuiltinDomain(
        name: name,
        codes: [
            entry(
                400, .validation, en: ("The request is malformed.", "Bad request"),
                tr: ("İstek hatalı.", "Hatalı istek")),
            entry(
                401, .auth, en: ("Sign in to continue.", "Sign-in required"),
                tr: ("Devam etmek için oturum açın.", "Oturum açmanız gerekiyor")),
            entry(
                403, .auth, en: ("You are not allowed to do this.", "Not allowed"),
                tr: ("Bunu yapmaya izniniz yok.", "İzin yok")),
            entry(
                404, .validation, en: ("Nothing was found at this address.", "Not found"),
                tr: ("Bu adreste bir şey bulunamadı.", "Bulunamadı")),
            entry(
                405, .validation, en: ("This address does not accept this method.", "Method not allowed"),
                tr: ("Bu adres bu yöntemi kabul etmiyor.", "Yönteme izin verilmiyor")),
            entry(
                408, .network, en: ("The request took too long to arrive.", "Request timeout"),
                tr: ("İsteğin gelmesi çok uzun sürdü.", "İstek zaman aşımı")),
            entry(
                409, .state, en: ("The request conflicts with the current state.", "Conflict"),
                tr: ("İstek mevcut durumla çelişiyor.", "Çakışma")),
            entry(
                413, .validation, en: ("The request is too large.", "Request too large"),
                tr: ("İstek çok büyük.", "İstek çok büyük")),
            entry(
                415, .validation, en: ("The request's content type is not supported.", "Unsupported media type"),
                tr: ("İsteğin içerik türü desteklenmiyor.", "Desteklenmeyen içerik türü")),
            entry(
                422, .validation, en: ("The request could not be processed.", "Unprocessable request"),
                tr: ("İstek işlenemedi.", "İşlenemeyen istek")),
            entry(
                429, .network, en: ("Too many requests. Try again later.", "Too many requests"),
                tr: ("Çok fazla istek. Daha sonra yeniden deneyin.", "Çok fazla istek")),
            entry(
                500, .general, en: ("Something went wrong. Please try again.", "Something went wrong"),
                tr: ("Bir şeyler ters gitti. Lütfen yeniden deneyin.", "Bir şeyler ters gitti")),
            entry(
                501, .capability, en: ("This is not supported.", "Not supported"),
                tr: ("Bu desteklenmiyor.", "Desteklenmiyor")),
            entry(
                502, .network, en: ("A service this one depends on failed.", "Bad gateway"),
                tr: ("Bu hizmetin bağlı olduğu bir hizmet başarısız oldu.", "Hatalı ağ geçidi")),
            entry(
                503, .capability, en: ("The service is unavailable right now. Try again later.", "Service unavailable"),
                tr: ("Hizmet şu anda kullanılamıyor. Daha sonra yeniden deneyin.", "Hizmet kullanılamıyor")),
            entry(
                504, .network, en: ("A service this one depends on did not answer in time.", "Gateway timeout"),
                tr: ("Bu hizmetin bağlı olduğu bir hizmet zamanında yanıt vermedi.", "Ağ geçidi zaman aşımı")),
        ])

    /// Registers the domain in `registry`. Idempotent.
    package static func register(in registry: ErrorRegistry) throws(RegistrationError) {
        _ = try registry.registerFrameworkDomain(domain)
    }

    /// Registers the domain in `registry` and teaches it the identity of a server framework's own status error:
    /// `axiom.http/<status>`, the status read by `status`. What a server adapter calls once, for its framework's type.
    package static func register<StatusError: Error>(
        _ type: StatusError.Type, in registry: ErrorRegistry, status: @escaping @Sendable (StatusError) -> Int
    ) throws(RegistrationError) {
        try register(in: registry)
        registry.registerIdentity(of: type) { code(status: status($0)) }
    }

    /// A client error (4xx) is the client's to fix: handled where it happens, at warning; a server error at error.
    private static func entry(
        _ status: Int, _ category: ErrorCategory, en: (message: String, title: String),
        tr: (message: String, title: String)
    ) -> CodeDefinition {
        CodeDefinition(
            name, String(status), category: category, severity: status >= 500 ? .error : .warning,
            disposition: .handle, httpStatus: status,
            texts: [
                "en": .init(title: en.title, message: en.message), "tr": .init(title: tr.title, message: tr.message),
            ])
    }
}
#endif
