import AxiomCatalog
import FoundationEssentials

/// The framework's base errors. Domain `axiom`.
public enum AxiomError: IdentifiableError, LocalizedError, Sendable {
    case capabilityUnavailable(String)
    case stateCorruption(String)
    case architecturalViolation(String)
    case performanceThresholdExceeded(String)
    case configurationError(String)
    case unknownError(underlying: any Error)

    /// The domain of these errors.
    package static let domain = "axiom"

    public var errorCode: ErrorCode {
        switch self {
        case .capabilityUnavailable: ErrorCode(Self.domain, "capabilityUnavailable")
        case .stateCorruption: ErrorCode(Self.domain, "stateCorruption")
        case .architecturalViolation: ErrorCode(Self.domain, "architecturalViolation")
        case .performanceThresholdExceeded: ErrorCode(Self.domain, "performanceThresholdExceeded")
        case .configurationError: ErrorCode(Self.domain, "configurationError")
        case .unknownError: ErrorCode(Self.domain, "unknownError")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .capabilityUnavailable(let name): "The capability \(name) is unavailable."
        case .stateCorruption(let what): "The application state is corrupted: \(what)."
        case .architecturalViolation(let what): "An architectural rule was broken: \(what)."
        case .performanceThresholdExceeded(let what): "A performance threshold was exceeded: \(what)."
        case .configurationError(let what): "The configuration is invalid: \(what)."
        case .unknownError(let underlying): "An unexpected error occurred: \(underlying)."
        }
    }

    public var recoverySuggestion: String? { Self.builtinDomain.englishTexts(of: errorCode)?.recovery }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            CodeDefinition(
                domain, "capabilityUnavailable", category: .capability, severity: .warning, disposition: .escalate,
                texts: [
                    "en": .init(
                        title: "Not available", message: "A capability this needs is unavailable.",
                        recovery: "Check that the resource is available, then try again."),
                    "tr": .init(
                        title: "Kullanılamıyor", message: "Gereken bir özellik kullanılamıyor.",
                        recovery: "Kaynağın kullanılabilir olduğunu kontrol edin ve yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "stateCorruption", category: .state, severity: .critical, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "App state problem", message: "The application state is corrupted.",
                        recovery: "Restart the application to restore a known good state."),
                    "tr": .init(
                        title: "Uygulama durumu sorunu", message: "Uygulamanın durumu bozuldu.",
                        recovery: "Sağlam bir duruma dönmek için uygulamayı yeniden başlatın."),
                ]),
            CodeDefinition(
                domain, "architecturalViolation", category: .general, severity: .critical, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Internal error", message: "An internal rule was broken.",
                        recovery: "Report this to the developers; it is a bug."),
                    "tr": .init(
                        title: "İç hata", message: "Bir iç kural ihlal edildi.",
                        recovery: "Bunu geliştiricilere bildirin; bu bir yazılım hatası."),
                ]),
            CodeDefinition(
                domain, "performanceThresholdExceeded", category: .general, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Taking too long", message: "This is taking longer than it should.",
                        recovery: "Close other work or try again later."),
                    "tr": .init(
                        title: "Çok uzun sürüyor", message: "Bu işlem olması gerekenden uzun sürüyor.",
                        recovery: "Diğer işleri kapatın ya da daha sonra yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "configurationError", category: .configuration, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Configuration problem", message: "The configuration is invalid.",
                        recovery: "Correct the configuration and restart."),
                    "tr": .init(
                        title: "Yapılandırma sorunu", message: "Yapılandırma geçersiz.",
                        recovery: "Yapılandırmayı düzeltip uygulamayı yeniden başlatın."),
                ]),
            CodeDefinition(
                domain, "unknownError", category: .general, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Something went wrong", message: "Something went wrong. Please try again.",
                        recovery: "Try again. If it keeps happening, contact support."),
                    "tr": .init(
                        title: "Bir şeyler ters gitti", message: "Bir şeyler ters gitti. Lütfen yeniden deneyin.",
                        recovery: "Yeniden deneyin. Sorun sürerse destek ekibiyle iletişime geçin."),
                ]),
        ])

    /// One value of every case, for the tests that check each code against the catalog.
    static let samples: [AxiomError] = [
        .capabilityUnavailable("x"), .stateCorruption("x"), .architecturalViolation("x"),
        .performanceThresholdExceeded("x"), .configurationError("x"), .unknownError(underlying: CancellationError()),
    ]
}
