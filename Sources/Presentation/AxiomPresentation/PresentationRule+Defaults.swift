import AxiomCore

extension PresentationRule {
    /// The default presentation of a category:
    ///
    /// | category | style | duration | feedback |
    /// |---|---|---|---|
    /// | validation | inline | 2 s | none |
    /// | network | banner | 3 s | medium |
    /// | credit | modal | until dismissed | error |
    /// | api | banner | 4 s | error |
    /// | auth | full screen | until dismissed | error |
    /// | anything else | toast | 3 s | light |
    ///
    /// The table allows "inline or toast" for validation and "banner or modal" for API errors; the
    /// lighter one is the default, and a descriptor that needs the other says so in its `presentation`.
    package static func categoryDefault(_ category: ErrorCategory) -> PresentationRule {
        switch category {
        case .validation: PresentationRule(style: .inline, duration: .seconds(2), feedback: .none)
        case .network: PresentationRule(style: .banner, duration: .seconds(3), feedback: .medium)
        case .credit: PresentationRule(style: .modal, duration: nil, feedback: .error)
        case .api: PresentationRule(style: .banner, duration: .seconds(4), feedback: .error)
        case .auth: PresentationRule(style: .fullScreen, duration: nil, feedback: .error)
        case .capability, .state, .storage, .configuration, .cancellation, .general: .unknown
        }
    }

    /// An error of no known category: a toast for 3 s with light feedback.
    package static let unknown = PresentationRule(style: .toast, duration: .seconds(3), feedback: .light)
}

extension ErrorDescriptor {
    /// The rule this descriptor is presented with: its own, or its category's default.
    package var effectivePresentation: PresentationRule {
        presentation ?? .categoryDefault(category)
    }
}
