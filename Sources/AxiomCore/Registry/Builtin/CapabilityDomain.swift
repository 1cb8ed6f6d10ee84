import Foundation

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
    public static let domain = "axiom.capability"

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

    public var recoverySuggestion: String? {
        Self.builtinDomain.codes.first { $0.name == errorCode.code }?.english.recovery
    }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            BuiltinCode(
                name: "capabilityUnavailable", category: .capability, severity: .warning, disposition: .escalate,
                english: BuiltinTexts(
                    "A capability this needs is unavailable.", recovery: "Make the resource available, then try again.",
                    title: "Not available"),
                turkish: BuiltinTexts(
                    "Gereken bir özellik kullanılamıyor.",
                    recovery: "Kaynağı kullanılabilir hale getirip yeniden deneyin.", title: "Kullanılamıyor")),
            BuiltinCode(
                name: "requirementNotMet", category: .capability, severity: .warning, disposition: .handle,
                english: BuiltinTexts(
                    "A requirement of this action is not met.", recovery: "Meet the requirement, then try again.",
                    title: "Requirement not met"),
                turkish: BuiltinTexts(
                    "Bu işlemin bir gereksinimi karşılanmıyor.", recovery: "Gereksinimi karşılayıp yeniden deneyin.",
                    title: "Gereksinim karşılanmadı")),
            BuiltinCode(
                name: "validationTimeout", category: .capability, severity: .warning, disposition: .recover,
                retry: RetryPolicy(maxAttempts: 3, backoff: .exponential, delay: .seconds(1)),
                english: BuiltinTexts(
                    "Checking the capability took too long.", recovery: "Check your connection and try again.",
                    title: "Timed out"),
                turkish: BuiltinTexts(
                    "Özelliğin denetimi çok uzun sürdü.", recovery: "Bağlantınızı kontrol edip yeniden deneyin.",
                    title: "Zaman aşımı")),
            BuiltinCode(
                name: "executionFailed", category: .capability, severity: .error, disposition: .escalate,
                english: BuiltinTexts(
                    "A capability this needs failed.", recovery: "Try again.", title: "Action failed"),
                turkish: BuiltinTexts(
                    "Gereken bir özellik başarısız oldu.", recovery: "Yeniden deneyin.", title: "İşlem başarısız")),
            BuiltinCode(
                name: "fallbackUnavailable", category: .capability, severity: .error, disposition: .handle,
                english: BuiltinTexts(
                    "The capability is unavailable and there is no fallback.",
                    recovery: "Make the resource available, then try again.", title: "Not available"),
                turkish: BuiltinTexts(
                    "Özellik kullanılamıyor ve yerine geçecek bir yedek yok.",
                    recovery: "Kaynağı kullanılabilir hale getirip yeniden deneyin.", title: "Kullanılamıyor")),
        ])

    /// One value of every case, for the tests that check each code against the catalog.
    static let samples: [CapabilityError] = [
        .capabilityUnavailable("x"), .requirementNotMet(CapabilityRequirement(capability: "x", detail: "y")),
        .validationTimeout, .executionFailed(underlying: CancellationError()), .fallbackUnavailable,
    ]
}
