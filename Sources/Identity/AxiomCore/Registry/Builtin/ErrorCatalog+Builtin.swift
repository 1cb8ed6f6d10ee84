import AxiomCatalog

extension ErrorCatalog {
    /// The source name of the framework's own catalog.
    package static let builtinSource = "builtin"

    /// The code used for errors whose type the registry cannot identify.
    package static let unknownCode = ErrorCode(AxiomError.domain, "unknownError")

    /// The code of Swift's `CancellationError`.
    package static let cancellationCode = ErrorCode(SwiftDomain.name, "CancellationError")

    /// The framework's own domains, present in every registry from the start: `axiom`, `axiom.client`,
    /// `axiom.context`, `axiom.capability`, `axiom.resilience`, `axiom.registry`, `axiom.decoding`, and `swift`
    /// for `CancellationError`. Each
    /// domain is declared whole in its own file (`Sources/Identity/AxiomCore/Registry/Builtin`).
    package static let builtin: ErrorCatalog = {
        let domains = builtinDomains.map(\.domain)
        return ErrorCatalog(
            source: builtinSource, version: "1.0.0", domains: domains.map(\.name),
            definitions: domains.flatMap(\.codes), messages: GeneralTexts.messages)
    }()

    /// The built-in domains, each with one error of every code it declares (for the tests that hold each
    /// domain's type and its catalog to each other).
    static let builtinDomains: [(domain: BuiltinDomain, samples: [any Error])] = [
        (AxiomError.builtinDomain, AxiomError.samples), (ClientError.builtinDomain, ClientError.samples),
        (ContextError.builtinDomain, ContextError.samples), (CapabilityError.builtinDomain, CapabilityError.samples),
        (SwiftDomain.builtinDomain, SwiftDomain.samples), (CircuitOpenError.builtinDomain, CircuitOpenError.samples),
        (RegistrationError.builtinDomain, RegistrationError.samples),
        (DomainError.DecodingFailure.builtinDomain, DomainError.DecodingFailure.samples),
    ]
}

/// Texts that belong to no code: the general fallback message and the title of every category, which
/// presentation uses when a code has no title of its own.
enum GeneralTexts {
    /// The texts by locale.
    static var messages: [String: [String: String]] { ["en": english, "tr": turkish] }

    static let english: [String: String] = [
        "error.general.unexpected": "Something went wrong. Please try again.",
        "error.general.title": "Something went wrong",
        "error.validation.title": "Check your input",
        "error.network.title": "Connection problem",
        "error.api.title": "Service problem",
        "error.credit.title": "Not enough balance",
        "error.auth.title": "Sign-in required",
        "error.capability.title": "Not available",
        "error.state.title": "Unexpected state",
        "error.storage.title": "Storage problem",
        "error.configuration.title": "Configuration problem",
        "error.cancellation.title": "Cancelled",
    ]

    static let turkish: [String: String] = [
        "error.general.unexpected": "Bir şeyler ters gitti. Lütfen yeniden deneyin.",
        "error.general.title": "Bir şeyler ters gitti",
        "error.validation.title": "Girdinizi kontrol edin",
        "error.network.title": "Bağlantı sorunu",
        "error.api.title": "Hizmet sorunu",
        "error.credit.title": "Yetersiz bakiye",
        "error.auth.title": "Oturum açmanız gerekiyor",
        "error.capability.title": "Kullanılamıyor",
        "error.state.title": "Beklenmeyen durum",
        "error.storage.title": "Depolama sorunu",
        "error.configuration.title": "Yapılandırma sorunu",
        "error.cancellation.title": "İptal edildi",
    ]
}
