/// One built-in domain, declared the way a plugin declares its catalog: every code with its fate and its
/// texts in English and Turkish, side by side, so that adding a code is one entry in one file.
///
/// The domain files (`AxiomDomain.swift`, `ClientDomain.swift`, …) each hold an error type and its
/// ``BuiltinDomain``; `ErrorCatalog+Builtin.swift` lists the domains that make up ``ErrorCatalog/builtin``.
struct BuiltinDomain: Sendable {
    /// The domain's name: `axiom.client`.
    let name: String
    /// Its codes, in the order they are documented.
    let codes: [BuiltinCode]

    /// The descriptors of the domain's codes. Keys follow the plugins' rule: `error.<domain>.<code>`, its
    /// recovery suggestion under `.recovery` when there is one, and its title under `.title`.
    var descriptors: [ErrorDescriptor] {
        codes.map { entry in
            let key = messageKey(entry.name)
            return ErrorDescriptor(
                code: ErrorCode(name, entry.name), category: entry.category, severity: entry.severity,
                disposition: entry.disposition, retry: entry.retry, messageKey: key,
                recoverySuggestionKey: entry.english.recovery == nil ? nil : key + ".recovery",
                escalation: entry.escalation)
        }
    }

    /// The domain's texts in one locale, keyed as its descriptors reference them.
    func messages(_ locale: KeyPath<BuiltinCode, BuiltinTexts>) -> [String: String] {
        var texts: [String: String] = [:]
        for entry in codes {
            let key = messageKey(entry.name)
            let localized = entry[keyPath: locale]
            texts[key] = localized.message
            texts[key + ".title"] = localized.title
            if let recovery = localized.recovery { texts[key + ".recovery"] = recovery }
        }
        return texts
    }

    /// The localization key of a code's message.
    func messageKey(_ code: String) -> String { "error.\(name).\(code)" }
}

/// One code of a built-in domain.
struct BuiltinCode: Sendable {
    /// The code within its domain: `invalidState`.
    let name: String
    /// What kind of failure it is.
    let category: ErrorCategory
    /// How serious it is.
    let severity: ErrorSeverity
    /// What the generic handlers do with it.
    let disposition: Disposition
    /// How it may be retried; nil: never.
    var retry: RetryPolicy? = nil
    /// What an escalation by the generic handler turns it into.
    var escalation: ErrorCode? = nil
    /// Its English texts.
    let english: BuiltinTexts
    /// Its Turkish texts.
    let turkish: BuiltinTexts
}

/// A code's user-facing texts in one locale: generic, without payload details a catalog cannot know.
struct BuiltinTexts: Sendable {
    /// What happened.
    let message: String
    /// What the user can do, if anything.
    let recovery: String?
    /// A short heading.
    let title: String

    init(_ message: String, recovery: String? = nil, title: String) {
        self.message = message
        self.recovery = recovery
        self.title = title
    }
}
