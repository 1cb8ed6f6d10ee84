import AxiomCore

/// Maps an error to what the user sees: localized title, message and recovery action, and the style,
/// duration and feedback of its presentation (the descriptor's own rule, or its category's default).
///
/// ```swift
/// let mapper = ErrorMapper(locale: "tr")
/// let shown = mapper.map(DomainError(domain: "nwc", code: "INSUFFICIENT_BALANCE"))
/// queue.present(shown)
/// ```
public struct ErrorMapper: Sendable {
    /// Where descriptors and texts come from.
    package let registry: ErrorRegistry
    /// Looks up texts in the mapper's locale.
    package let localizer: Localizer

    /// A mapper for `locale`, reading `registry`.
    public init(registry: ErrorRegistry = .shared, locale: String = Localizer.baseLocale) {
        self.registry = registry
        self.localizer = Localizer(registry: registry, locale: locale)
    }

    /// The presentation of a descriptor.
    package func map(_ descriptor: ErrorDescriptor) -> ErrorPresentation {
        let message = localizer.message(for: descriptor)
        return ErrorPresentation(
            code: descriptor.code, category: descriptor.category, title: localizer.title(for: descriptor).text,
            message: message.text, recoverySuggestion: localizer.recoverySuggestion(for: descriptor)?.text,
            rule: descriptor.effectivePresentation, locale: message.locale)
    }

    /// The presentation of any error; one the registry does not know is presented as unexpected.
    public func map(_ error: any Error) -> ErrorPresentation {
        map(registry.descriptor(for: error))
    }

    /// The presentation of an error event.
    public func map(_ event: ErrorEvent) -> ErrorPresentation {
        map(event.descriptor)
    }
}
