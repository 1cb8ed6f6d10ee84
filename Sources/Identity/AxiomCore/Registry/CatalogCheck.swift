import AxiomCatalog

/// The load check of a catalog's messages: every key its descriptors reference exists in English, and no
/// text is empty. Missing titles and translations are warnings: the fallback covers them.
///
/// ```swift
/// let report = CatalogCheck.check(catalog, in: registry)
/// guard report.passes else { throw … report.errors … }
/// ```
package enum CatalogCheck {
    /// One finding.
    package struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        package enum Kind: String, Sendable, Hashable {
            /// A descriptor's message key has no English text. An error.
            case missingMessage
            /// A descriptor's recovery suggestion key has no English text. An error.
            case missingRecoverySuggestion
            /// A text is empty or only white space. An error: the user would see nothing.
            case emptyText
            /// A descriptor has no title (`messageKey.title`) in English; the category's title is used. A warning.
            case missingTitle
            /// A locale lacks a key that English has; English is shown instead. A warning.
            case missingTranslation
        }

        /// What is wrong.
        package let kind: Kind
        /// The catalog's source.
        package let source: String
        /// The key concerned.
        package let key: String
        /// The locale concerned, when it is one locale's problem.
        package let locale: String?
        /// The code whose descriptor references the key, when there is one.
        package let code: ErrorCode?

        /// Whether the catalog must be refused for it.
        package var isError: Bool {
            switch kind {
            case .missingMessage, .missingRecoverySuggestion, .emptyText: true
            case .missingTitle, .missingTranslation: false
            }
        }

        package var description: String { "\(source): \(problem)" }

        /// What is wrong, without the source: for a message that names the source once for several issues.
        var problem: String {
            let subject = code.map { "\($0): " } ?? ""
            let place = locale.map { " in \($0)" } ?? ""
            return switch kind {
            case .missingMessage: "\(subject)message key '\(key)' has no text in en"
            case .missingRecoverySuggestion: "\(subject)recovery key '\(key)' has no text in en"
            case .emptyText: "text of '\(key)'\(place) is empty"
            case .missingTitle: "\(subject)no title '\(key)' in en (the category title is used)"
            case .missingTranslation: "'\(key)' has no text\(place) (English is used)"
            }
        }
    }

    /// The findings for one catalog.
    package struct Report: Sendable, Hashable {
        /// The catalog's source.
        package let source: String
        /// Everything found, errors first.
        package let issues: [Issue]

        /// Findings that make the catalog unacceptable.
        package var errors: [Issue] { issues.filter(\.isError) }
        /// Findings the fallback covers.
        package var warnings: [Issue] { issues.filter { !$0.isError } }
        /// Whether the catalog may be loaded: no errors.
        package var passes: Bool { !issues.contains(where: \.isError) }
    }

    /// Checks a catalog's messages.
    ///
    /// A key may also be satisfied by a catalog already in `registry` (a plugin may reference
    /// `error.general.unexpected`, which the built-in catalog provides). Translations are checked for every
    /// locale the catalog ships besides English.
    package static func check(_ catalog: ErrorCatalog, in registry: ErrorRegistry? = nil) -> Report {
        check(catalog, englishFallback: { key in registry?.message(forKey: key, locale: ErrorCatalog.baseLocale) })
    }

    /// Checks a catalog's messages, taking a key the catalog lacks from the English texts of only those registered
    /// catalogs that `englishFrom` accepts. A plugin host passes the framework's own catalogs, so that whether a
    /// plugin passes does not depend on which other plugins were loaded before it.
    package static func check(
        _ catalog: ErrorCatalog, in registry: ErrorRegistry, englishFrom: (ErrorCatalog) -> Bool
    ) -> Report {
        let tables = registry.catalogs.filter(englishFrom).compactMap { $0.messages[ErrorCatalog.baseLocale] }
        return check(
            catalog,
            englishFallback: { key in
                for table in tables { if let text = table[key] { return text } }
                return nil
            })
    }

    private static func check(_ catalog: ErrorCatalog, englishFallback: (String) -> String?) -> Report {
        let base = ErrorCatalog.baseLocale
        let english = catalog.messages[base] ?? [:]
        func hasEnglish(_ key: String) -> Bool {
            if let text = english[key] { return !text.isBlankText }
            if let text = englishFallback(key) { return !text.isBlankText }
            return false
        }
        var errors: [Issue] = []
        var warnings: [Issue] = []
        func issue(_ kind: Issue.Kind, _ key: String, locale: String? = nil, code: ErrorCode? = nil) {
            let found = Issue(kind: kind, source: catalog.source, key: key, locale: locale, code: code)
            if found.isError { errors.append(found) } else { warnings.append(found) }
        }

        for locale in catalog.messages.keys.sorted() {
            // Only the blank texts are sorted (for a stable report), not the whole table.
            let blank = catalog.messages[locale]!.compactMap { key, text in text.isBlankText ? key : nil }
            for key in blank.sorted() { issue(.emptyText, key, locale: locale) }
        }
        var referenced: [String] = []
        for descriptor in catalog.descriptors {
            let code = descriptor.code
            if !hasEnglish(descriptor.messageKey) {
                // An empty text is already reported; a missing one is reported here.
                if english[descriptor.messageKey] == nil { issue(.missingMessage, descriptor.messageKey, code: code) }
            }
            referenced.append(descriptor.messageKey)
            if let key = descriptor.recoverySuggestionKey {
                if !hasEnglish(key) && english[key] == nil { issue(.missingRecoverySuggestion, key, code: code) }
                referenced.append(key)
            }
            let titleKey = descriptor.messageKey + ".title"
            if hasEnglish(titleKey) {
                referenced.append(titleKey)
            } else if english[titleKey] == nil {
                issue(.missingTitle, titleKey, code: code)
            }
        }
        for locale in catalog.messages.keys.sorted() where locale != base {
            let table = catalog.messages[locale]!
            for key in referenced where table[key] == nil && english[key] != nil {
                issue(.missingTranslation, key, locale: locale)
            }
        }
        return Report(source: catalog.source, issues: errors + warnings)
    }

    /// Checks every catalog registered in `registry`, against the registry's messages.
    package static func check(_ registry: ErrorRegistry) -> [Report] {
        registry.catalogs.map { check($0, in: registry) }
    }
}

/// A catalog refused at load: its registration failed, or its messages did not pass ``CatalogCheck``.
package struct CatalogLoadError: Error, Sendable, CustomStringConvertible {
    /// The registration failure, if the registry refused it.
    package let registration: RegistrationError?
    /// The message check's errors, if the check refused it.
    package let issues: [CatalogCheck.Issue]

    package var description: String {
        if let registration { return registration.description }
        // One catalog's issues: its source once, then each problem.
        guard let source = issues.first?.source, issues.allSatisfy({ $0.source == source }) else {
            return issues.map(\.description).joined(separator: "; ")
        }
        return "\(source): " + issues.map(\.problem).joined(separator: "; ")
    }
}

extension ErrorRegistry {
    /// Registers a catalog after checking its messages: a catalog whose descriptors reference a key with no
    /// English text is refused whole, like any other invalid catalog.
    ///
    /// - Returns: the check's report; its warnings (missing titles, missing translations) do not refuse.
    @discardableResult
    package func registerChecked(_ catalog: ErrorCatalog) throws(CatalogLoadError) -> CatalogCheck.Report {
        try registerChecked(catalog, report: CatalogCheck.check(catalog, in: self))
    }

    /// Registers a catalog after checking its messages against its own texts and those of the registered catalogs
    /// `englishFrom` accepts (see ``CatalogCheck/check(_:in:englishFrom:)``): the answer does not depend on what
    /// else was registered before.
    @discardableResult
    package func registerChecked(
        _ catalog: ErrorCatalog, englishFrom: (ErrorCatalog) -> Bool
    ) throws(CatalogLoadError) -> CatalogCheck.Report {
        try registerChecked(catalog, report: CatalogCheck.check(catalog, in: self, englishFrom: englishFrom))
    }

    /// Registers catalogs in order, each all or nothing, into one new snapshot (`register(_:admitting:)`), each
    /// after `admitting` lets it through and its messages pass the check `registerChecked(_:englishFrom:)` makes:
    /// what a plugin search registers. The answers are those of registering them one at a time.
    ///
    /// - Parameter admitting: the caller's own checks of the catalog at `index`, given the indices of those
    ///   registered before it (see `register(_:admitting:)`); made before the check of its messages.
    /// - Returns: what became of each catalog.
    package func registerChecked(
        _ catalogs: [ErrorCatalog], englishFrom: (ErrorCatalog) -> Bool,
        admitting: (_ index: Int, _ registeredBefore: [Int]) -> Bool = { _, _ in true }
    ) -> [BatchRegistration<CatalogLoadError>] {
        var invalid: [Int: CatalogLoadError] = [:]
        let outcomes = register(catalogs) { index, before in
            guard admitting(index, before) else { return false }
            let report = CatalogCheck.check(catalogs[index], in: self, englishFrom: englishFrom)
            if report.passes { return true }
            invalid[index] = CatalogLoadError(registration: nil, issues: report.errors)
            return false
        }
        return outcomes.enumerated().map { index, outcome in
            switch outcome {
            case .registered: .registered
            case .refused(let refusal): .refused(CatalogLoadError(registration: refusal, issues: []))
            case .notAdmitted: invalid[index].map { .refused($0) } ?? .notAdmitted
            }
        }
    }

    private func registerChecked(
        _ catalog: ErrorCatalog, report: CatalogCheck.Report
    ) throws(CatalogLoadError) -> CatalogCheck.Report {
        guard report.passes else { throw CatalogLoadError(registration: nil, issues: report.errors) }
        do {
            try register(catalog)
        } catch {
            throw CatalogLoadError(registration: error, issues: [])
        }
        return report
    }
}
