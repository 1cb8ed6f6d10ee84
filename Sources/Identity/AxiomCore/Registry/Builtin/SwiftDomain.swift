import AxiomCatalog

/// The domain `swift`: Swift's own `CancellationError`, which the registry knows without a conformance.
/// Other Swift errors the registry cannot identify are named `swift/<TypeName>` and are not registered.
enum SwiftDomain {
    /// The domain's name.
    static let name = "swift"

    static let builtinDomain = BuiltinDomain(
        name: name,
        codes: [
            CodeDefinition(
                name, "CancellationError", category: .cancellation, severity: .debug, disposition: .ignore,
                texts: [
                    "en": .init(title: "Cancelled", message: "The operation was cancelled."),
                    "tr": .init(title: "İptal edildi", message: "İşlem iptal edildi."),
                ])
        ])

    /// Samples of every code, for the tests that check each code against the catalog.
    static let samples: [any Error] = [CancellationError()]
}
