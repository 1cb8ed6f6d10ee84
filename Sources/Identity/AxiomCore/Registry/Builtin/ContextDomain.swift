import AxiomCatalog
import FoundationEssentials

/// Errors of contexts, which orchestrate clients for one use case. Domain `axiom.context`.
public enum ContextError: IdentifiableError, LocalizedError, Sendable {
    case bindingFailure(property: String)
    case orchestrationError(clients: [String])
    case stateObservationFailed
    case uiUpdateFailed(underlying: any Error)

    /// The domain of these errors.
    package static let domain = "axiom.context"

    public var errorCode: ErrorCode {
        switch self {
        case .bindingFailure: ErrorCode(Self.domain, "bindingFailure")
        case .orchestrationError: ErrorCode(Self.domain, "orchestrationError")
        case .stateObservationFailed: ErrorCode(Self.domain, "stateObservationFailed")
        case .uiUpdateFailed: ErrorCode(Self.domain, "uiUpdateFailed")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .bindingFailure(let property): "The property \(property) could not be bound."
        case .orchestrationError(let clients):
            "The clients \(clients.joined(separator: ", ")) could not be orchestrated."
        case .stateObservationFailed: "The context lost track of its clients' state."
        case .uiUpdateFailed(let underlying): "The screen could not be updated: \(underlying)."
        }
    }

    public var recoverySuggestion: String? { Self.builtinDomain.englishTexts(of: errorCode)?.recovery }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            CodeDefinition(
                domain, "bindingFailure", category: .state, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Display problem", message: "Part of the screen could not be connected to its data.",
                        recovery: "Reopen the screen."),
                    "tr": .init(
                        title: "Görüntüleme sorunu", message: "Ekranın bir bölümü verisine bağlanamadı.",
                        recovery: "Ekranı yeniden açın."),
                ]),
            CodeDefinition(
                domain, "orchestrationError", category: .general, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Task failed", message: "The parts of this task did not work together.",
                        recovery: "Try the action again."),
                    "tr": .init(
                        title: "Görev başarısız", message: "Bu görevin parçaları birlikte çalışamadı.",
                        recovery: "İşlemi yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "stateObservationFailed", category: .state, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Out of sync", message: "The context lost track of its clients' state.",
                        recovery: "Reopen the screen to observe the state again."),
                    "tr": .init(
                        title: "Eşitleme sorunu", message: "Bağlam, istemcilerinin durumunu izleyemez oldu.",
                        recovery: "Durumu yeniden izlemek için ekranı yeniden açın."),
                ]),
            CodeDefinition(
                domain, "uiUpdateFailed", category: .general, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Display problem", message: "The screen could not be updated.",
                        recovery: "Reopen the screen."),
                    "tr": .init(
                        title: "Görüntüleme sorunu", message: "Ekran güncellenemedi.", recovery: "Ekranı yeniden açın."),
                ]),
        ])

    /// One value of every case, for the tests that check each code against the catalog.
    static let samples: [ContextError] = [
        .bindingFailure(property: "x"), .orchestrationError(clients: ["x"]), .stateObservationFailed,
        .uiUpdateFailed(underlying: CancellationError()),
    ]
}
