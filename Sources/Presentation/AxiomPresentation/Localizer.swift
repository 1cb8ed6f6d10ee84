import AxiomCore

/// Looks up user-facing texts in a registry's catalogs, with a fallback that never ends in an empty
/// string or a raw key.
///
/// For a locale like `tr-TR` the chain is `tr-TR` → `tr` → `en`; for each text:
///
/// - message: the descriptor's `messageKey`, then `error.general.unexpected`;
/// - title: `messageKey + ".title"`, then the category's `error.<category>.title`, then `error.general.title`;
/// - recovery suggestion: the descriptor's `recoverySuggestionKey`, else none (nothing to suggest is better
///   than a generic suggestion).
///
/// Each key goes through the whole locale chain before the next key is tried: an English text of the right
/// error beats a Turkish text of the generic one.
@usableFromInline package struct Localizer: Sendable {
    /// The locale every catalog must provide, and the last in every chain.
    @usableFromInline package static let baseLocale = ErrorCatalog.baseLocale
    /// The message of last resort.
    package static let unexpectedKey = "error.general.unexpected"
    /// The title of last resort.
    package static let generalTitleKey = "error.general.title"

    /// A text and where it came from.
    package struct Text: Sendable, Hashable {
        /// The text.
        package var text: String
        /// The locale it is in.
        package var locale: String
        /// The key it was found under.
        package var key: String
    }

    /// Where texts come from.
    package let registry: ErrorRegistry
    /// The locales tried, in order; always ends with `en`.
    package let chain: [String]

    /// A localizer for `locale` (`tr`, `tr-TR`, `tr_TR`; an unknown one falls back to English).
    package init(registry: ErrorRegistry = .shared, locale: String = Localizer.baseLocale) {
        self.registry = registry
        self.chain = Self.chain(for: locale)
    }

    /// The locales tried for a requested one: as given, normalized (`tr_TR` → `tr-tr`), its language, `en`.
    package static func chain(for locale: String) -> [String] {
        if let chain = normalizedChain(for: locale) { return chain }
        let trimmed = locale.trimmingWhitespace()
        let normalized = String(trimmed.lowercased().map { $0 == "_" ? "-" : $0 })
        let language = String(normalized.prefix { $0 != "-" })
        var chain: [String] = []
        for candidate in [trimmed, normalized, language, baseLocale] where !candidate.isEmpty {
            if !chain.contains(candidate) { chain.append(candidate) }
        }
        return chain
    }

    /// The chain of a locale already in normal form (`tr`, `tr-tr`: lower-case ASCII letters, digits and `-`), the
    /// form negotiated locales come in, read without the general path's Unicode case mapping; nil for any other.
    private static func normalizedChain(for locale: String) -> [String]? {
        if locale == baseLocale { return [baseLocale] }
        var languageEnd: String.Index?
        for index in locale.utf8.indices {
            switch locale.utf8[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): continue
            case UInt8(ascii: "-"): if languageEnd == nil { languageEnd = index }
            default: return nil
            }
        }
        guard let languageEnd else { return locale.isEmpty ? [baseLocale] : [locale, baseLocale] }
        let language = String(locale[..<languageEnd])
        var chain = [locale]
        if !language.isEmpty, language != locale { chain.append(language) }
        if !chain.contains(baseLocale) { chain.append(baseLocale) }
        return chain
    }

    /// The first non-empty text for `key` along the locale chain.
    package func text(forKey key: String) -> Text? {
        for locale in chain {
            if let text = registry.message(forKey: key, locale: locale), !text.isBlankText {
                return Text(text: text, locale: locale, key: key)
            }
        }
        return nil
    }

    /// The first key of `keys` with a text, along the locale chain.
    package func firstText(forKeys keys: [String]) -> Text? {
        for key in keys {
            if let text = text(forKey: key) { return text }
        }
        return nil
    }

    /// The message of a descriptor.
    package func message(for descriptor: ErrorDescriptor) -> Text {
        firstText(forKeys: [descriptor.messageKey, Self.unexpectedKey])
            ?? Text(text: "Something went wrong. Please try again.", locale: Self.baseLocale, key: Self.unexpectedKey)
    }

    /// The title of a descriptor.
    package func title(for descriptor: ErrorDescriptor) -> Text {
        firstText(forKeys: [
            Self.titleKey(for: descriptor), Self.categoryTitleKey(descriptor.category), Self.generalTitleKey,
        ]) ?? Text(text: "Something went wrong", locale: Self.baseLocale, key: Self.generalTitleKey)
    }

    /// The recovery suggestion of a descriptor, if it has one with a text.
    package func recoverySuggestion(for descriptor: ErrorDescriptor) -> Text? {
        descriptor.recoverySuggestionKey.flatMap { text(forKey: $0) }
    }

    /// The key of a descriptor's title: its message key with `.title` appended.
    package static func titleKey(for descriptor: ErrorDescriptor) -> String { descriptor.messageKey + ".title" }

    /// The key of a category's title: `error.<category>.title`.
    package static func categoryTitleKey(_ category: ErrorCategory) -> String { "error.\(category.rawValue).title" }
}
