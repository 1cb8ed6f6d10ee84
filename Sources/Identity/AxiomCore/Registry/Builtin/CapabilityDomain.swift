import AxiomCatalog
import FoundationEssentials

/// A requirement a capability did not meet: which capability, and what was missing.
public struct CapabilityRequirement: Sendable, Hashable, CustomStringConvertible {
    /// The capability's name (`network`, `storage`, `wallet`).
    public var capability: String
    /// What was required of it (`free space ≥ 100 MB`).
    public var detail: String

    /// Creates a requirement.
    public init(capability: String, detail: String) {
        self.capability = capability
        self.detail = detail
    }

    public var description: String { "\(capability): \(detail)" }
}

/// Errors of capabilities, the resources an operation needs. Domain `axiom.capability`.
public enum CapabilityError: IdentifiableError, LocalizedError, Sendable {
    case capabilityUnavailable(String)
    case requirementNotMet(CapabilityRequirement)
    case validationTimeout
    case executionFailed(underlying: any Error)
    case fallbackUnavailable

    /// The domain of these errors.
    package static let domain = "axiom.capability"

    public var errorCode: ErrorCode {
        switch self {
        case .capabilityUnavailable: ErrorCode(Self.domain, "capabilityUnavailable")
        case .requirementNotMet: ErrorCode(Self.domain, "requirementNotMet")
        case .validationTimeout: ErrorCode(Self.domain, "validationTimeout")
        case .executionFailed: ErrorCode(Self.domain, "executionFailed")
        case .fallbackUnavailable: ErrorCode(Self.domain, "fallbackUnavailable")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .capabilityUnavailable(let name): "The capability \(name) is unavailable."
        case .requirementNotMet(let requirement): "A requirement was not met: \(requirement)."
        case .validationTimeout: "Checking the capability took too long."
        case .executionFailed(let underlying): "The capability failed: \(underlying)."
        case .fallbackUnavailable: "The capability is unavailable and there is no fallback."
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
                        recovery: "Make the resource available, then try again."),
                    "tr": .init(
                        title: "Kullanılamıyor", message: "Gereken bir özellik kullanılamıyor.",
                        recovery: "Kaynağı kullanılabilir hale getirip yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "requirementNotMet", category: .capability, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Requirement not met", message: "A requirement of this action is not met.",
                        recovery: "Meet the requirement, then try again."),
                    "tr": .init(
                        title: "Gereksinim karşılanmadı", message: "Bu işlemin bir gereksinimi karşılanmıyor.",
                        recovery: "Gereksinimi karşılayıp yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "validationTimeout", category: .capability, severity: .warning, disposition: .recover,
                retry: RetryPolicy(maxAttempts: 3, backoff: .exponential, delay: .seconds(1)),
                texts: [
                    "en": .init(
                        title: "Timed out", message: "Checking the capability took too long.",
                        recovery: "Check your connection and try again."),
                    "tr": .init(
                        title: "Zaman aşımı", message: "Özelliğin denetimi çok uzun sürdü.",
                        recovery: "Bağlantınızı kontrol edip yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "executionFailed", category: .capability, severity: .error, disposition: .escalate,
                texts: [
                    "en": .init(
                        title: "Action failed", message: "A capability this needs failed.", recovery: "Try again."),
                    "tr": .init(
                        title: "İşlem başarısız", message: "Gereken bir özellik başarısız oldu.",
                        recovery: "Yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "fallbackUnavailable", category: .capability, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Not available", message: "The capability is unavailable and there is no fallback.",
                        recovery: "Make the resource available, then try again."),
                    "tr": .init(
                        title: "Kullanılamıyor", message: "Özellik kullanılamıyor ve yerine geçecek bir yedek yok.",
                        recovery: "Kaynağı kullanılabilir hale getirip yeniden deneyin."),
                ]),
        ])

    /// One value of every case, for the tests that check each code against the catalog.
    static let samples: [CapabilityError] = [
        .capabilityUnavailable("x"), .requirementNotMet(CapabilityRequirement(capability: "x", detail: "y")),
        .validationTimeout, .executionFailed(underlying: CancellationError()), .fallbackUnavailable,
    ]
}
