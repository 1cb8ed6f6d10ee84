import Foundation

/// The framework's base errors. Domain `axiom`.
public enum AxiomError: IdentifiableError, LocalizedError, Sendable {
    case capabilityUnavailable(String)
    case stateCorruption(String)
    case architecturalViolation(String)
    case performanceThresholdExceeded(String)
    case configurationError(String)
    case unknownError(underlying: any Error)

    /// The domain of these errors.
    public static let domain = "axiom"

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

    public var recoverySuggestion: String? {
        Self.builtinDomain.codes.first { $0.name == errorCode.code }?.english.recovery
    }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            BuiltinCode(
                name: "capabilityUnavailable", category: .capability, severity: .warning, disposition: .escalate,
                english: BuiltinTexts(
                    "A capability this needs is unavailable.",
                    recovery: "Check that the resource is available, then try again.", title: "Not available"),
                turkish: BuiltinTexts(
                    "Gereken bir özellik kullanılamıyor.",
                    recovery: "Kaynağın kullanılabilir olduğunu kontrol edin ve yeniden deneyin.",
                    title: "Kullanılamıyor")),
            BuiltinCode(
                name: "stateCorruption", category: .state, severity: .critical, disposition: .handle,
                english: BuiltinTexts(
                    "The application state is corrupted.",
                    recovery: "Restart the application to restore a known good state.", title: "App state problem"),
                turkish: BuiltinTexts(
                    "Uygulamanın durumu bozuldu.",
                    recovery: "Sağlam bir duruma dönmek için uygulamayı yeniden başlatın.",
                    title: "Uygulama durumu sorunu")),
            BuiltinCode(
                name: "architecturalViolation", category: .general, severity: .critical, disposition: .handle,
                english: BuiltinTexts(
                    "An internal rule was broken.", recovery: "Report this to the developers; it is a bug.",
                    title: "Internal error"),
                turkish: BuiltinTexts(
                    "Bir iç kural ihlal edildi.", recovery: "Bunu geliştiricilere bildirin; bu bir yazılım hatası.",
                    title: "İç hata")),
            BuiltinCode(
                name: "performanceThresholdExceeded", category: .general, severity: .warning, disposition: .handle,
                english: BuiltinTexts(
                    "This is taking longer than it should.", recovery: "Close other work or try again later.",
                    title: "Taking too long"),
                turkish: BuiltinTexts(
                    "Bu işlem olması gerekenden uzun sürüyor.",
                    recovery: "Diğer işleri kapatın ya da daha sonra yeniden deneyin.", title: "Çok uzun sürüyor")),
            BuiltinCode(
                name: "configurationError", category: .configuration, severity: .error, disposition: .handle,
                english: BuiltinTexts(
                    "The configuration is invalid.", recovery: "Correct the configuration and restart.",
                    title: "Configuration problem"),
                turkish: BuiltinTexts(
                    "Yapılandırma geçersiz.", recovery: "Yapılandırmayı düzeltip uygulamayı yeniden başlatın.",
                    title: "Yapılandırma sorunu")),
            BuiltinCode(
                name: "unknownError", category: .general, severity: .error, disposition: .handle,
                english: BuiltinTexts(
                    "Something went wrong. Please try again.",
                    recovery: "Try again. If it keeps happening, contact support.", title: "Something went wrong"),
                turkish: BuiltinTexts(
                    "Bir şeyler ters gitti. Lütfen yeniden deneyin.",
                    recovery: "Yeniden deneyin. Sorun sürerse destek ekibiyle iletişime geçin.",
                    title: "Bir şeyler ters gitti")),
        ])

    /// One value of every case, for the tests that check each code against the catalog.
    static let samples: [AxiomError] = [
        .capabilityUnavailable("x"), .stateCorruption("x"), .architecturalViolation("x"),
        .performanceThresholdExceeded("x"), .configurationError("x"), .unknownError(underlying: CancellationError()),
    ]
}
