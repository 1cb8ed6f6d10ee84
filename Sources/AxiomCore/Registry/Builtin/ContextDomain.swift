import Foundation

/// Errors of contexts, which orchestrate clients for one use case. Domain `axiom.context`.
public enum ContextError: IdentifiableError, LocalizedError, Sendable {
    case bindingFailure(property: String)
    case orchestrationError(clients: [String])
    case stateObservationFailed
    case uiUpdateFailed(underlying: any Error)

    /// The domain of these errors.
    public static let domain = "axiom.context"

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

    public var recoverySuggestion: String? {
        Self.builtinDomain.codes.first { $0.name == errorCode.code }?.english.recovery
    }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            BuiltinCode(
                name: "bindingFailure", category: .state, severity: .error, disposition: .handle,
                english: BuiltinTexts(
                    "Part of the screen could not be connected to its data.", recovery: "Reopen the screen.",
                    title: "Display problem"),
                turkish: BuiltinTexts(
                    "Ekranın bir bölümü verisine bağlanamadı.", recovery: "Ekranı yeniden açın.",
                    title: "Görüntüleme sorunu")),
            BuiltinCode(
                name: "orchestrationError", category: .general, severity: .error, disposition: .handle,
                english: BuiltinTexts(
                    "The parts of this task did not work together.", recovery: "Try the action again.",
                    title: "Task failed"),
                turkish: BuiltinTexts(
                    "Bu görevin parçaları birlikte çalışamadı.", recovery: "İşlemi yeniden deneyin.",
                    title: "Görev başarısız")),
            BuiltinCode(
                name: "stateObservationFailed", category: .state, severity: .error, disposition: .handle,
                english: BuiltinTexts(
                    "The context lost track of its clients' state.",
                    recovery: "Reopen the screen to observe the state again.", title: "Out of sync"),
                turkish: BuiltinTexts(
                    "Bağlam, istemcilerinin durumunu izleyemez oldu.",
                    recovery: "Durumu yeniden izlemek için ekranı yeniden açın.", title: "Eşitleme sorunu")),
            BuiltinCode(
                name: "uiUpdateFailed", category: .general, severity: .warning, disposition: .handle,
                english: BuiltinTexts(
                    "The screen could not be updated.", recovery: "Reopen the screen.", title: "Display problem"),
                turkish: BuiltinTexts(
                    "Ekran güncellenemedi.", recovery: "Ekranı yeniden açın.", title: "Görüntüleme sorunu")),
        ])

    /// One value of every case, for the tests that check each code against the catalog.
    static let samples: [ContextError] = [
        .bindingFailure(property: "x"), .orchestrationError(clients: ["x"]), .stateObservationFailed,
        .uiUpdateFailed(underlying: CancellationError()),
    ]
}
