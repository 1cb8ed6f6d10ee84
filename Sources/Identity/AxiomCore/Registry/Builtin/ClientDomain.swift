import AxiomCatalog
import FoundationEssentials

/// Errors of clients, the actors that own state. Domain `axiom.client`.
///
/// An enum, not the framework's struct shape: five codes, a closed set that a client's own code throws by name
/// (`throw ClientError.invalidState`) and that handlers switch on, the one payload (``updateFailed(underlying:)``'s
/// error) being what a handler reads. The runtime throws it from inside `Client.update`, so a throw site would
/// name the runtime, not the caller.
public enum ClientError: IdentifiableError, LocalizedError, Sendable {
    case invalidState
    case concurrencyViolation
    case updateFailed(underlying: any Error)
    case isolationBreach
    case actorDeallocation

    /// The domain of these errors.
    package static let domain = "axiom.client"

    public var errorCode: ErrorCode {
        switch self {
        case .invalidState: ErrorCode(Self.domain, "invalidState")
        case .concurrencyViolation: ErrorCode(Self.domain, "concurrencyViolation")
        case .updateFailed: ErrorCode(Self.domain, "updateFailed")
        case .isolationBreach: ErrorCode(Self.domain, "isolationBreach")
        case .actorDeallocation: ErrorCode(Self.domain, "actorDeallocation")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .updateFailed(let underlying): "The client's state could not be updated: \(underlying)."
        default: Self.builtinDomain.englishTexts(of: errorCode)?.message
        }
    }

    public var recoverySuggestion: String? { Self.builtinDomain.englishTexts(of: errorCode)?.recovery }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            CodeDefinition(
                domain, "invalidState", category: .state, severity: .error, disposition: .escalate,
                escalation: ErrorCode(ContextError.domain, "stateObservationFailed"),
                texts: [
                    "en": .init(
                        title: "Not possible right now",
                        message: "The client is in a state that does not allow this operation.",
                        recovery: "Reset the client to a known good state and try again."),
                    "tr": .init(
                        title: "Şu anda yapılamıyor", message: "İstemci bu işleme izin vermeyen bir durumda.",
                        recovery: "İstemciyi sağlam bir duruma sıfırlayıp yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "concurrencyViolation", category: .state, severity: .warning, disposition: .recover,
                retry: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .milliseconds(100)),
                texts: [
                    "en": .init(
                        title: "Busy", message: "Two operations changed the client's state at the same time.",
                        recovery: "Retry the operation; it will run after the other one."),
                    "tr": .init(
                        title: "Meşgul", message: "İki işlem istemcinin durumunu aynı anda değiştirdi.",
                        recovery: "İşlemi yeniden deneyin; diğeri bittikten sonra çalışacak."),
                ]),
            CodeDefinition(
                domain, "updateFailed", category: .state, severity: .error, disposition: .recover,
                retry: RetryPolicy(maxAttempts: 2, backoff: .constant, delay: .milliseconds(250)),
                texts: [
                    "en": .init(
                        title: "Update failed", message: "The client's state could not be updated.",
                        recovery: "Try the update again."),
                    "tr": .init(
                        title: "Güncelleme başarısız", message: "İstemcinin durumu güncellenemedi.",
                        recovery: "Güncellemeyi yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "isolationBreach", category: .general, severity: .critical, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Internal error", message: "The client's state was reached from outside its actor.",
                        recovery: "Report this to the developers; it is a bug."),
                    "tr": .init(
                        title: "İç hata", message: "İstemcinin durumuna kendi aktörünün dışından erişildi.",
                        recovery: "Bunu geliştiricilere bildirin; bu bir yazılım hatası."),
                ]),
            CodeDefinition(
                domain, "actorDeallocation", category: .state, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Operation interrupted",
                        message: "The client was released while an operation was still running.",
                        recovery: "Keep the client alive for as long as its operations run."),
                    "tr": .init(
                        title: "İşlem yarıda kaldı", message: "Bir işlem sürerken istemci serbest bırakıldı.",
                        recovery: "İşlemleri sürdükçe istemciyi bellekte tutun."),
                ]),
        ])

    /// One value of every case, for the tests that check each code against the catalog.
    static let samples: [ClientError] = [
        .invalidState, .concurrencyViolation, .updateFailed(underlying: CancellationError()), .isolationBreach,
        .actorDeallocation,
    ]
}
