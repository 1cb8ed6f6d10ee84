/// One of the framework's own domains, declared the way a plugin declares its catalog: every code with its fate
/// and its texts in English and Turkish, side by side, so that adding a code is one entry in one file.
///
/// The core's domain files (`AxiomDomain.swift`, `ClientDomain.swift`, …) each hold an error type and its
/// ``BuiltinDomain``; `ErrorCatalog+Builtin.swift` lists the domains that make up ``ErrorCatalog/builtin``. The
/// modules above the core declare theirs the same way (`axiom.plugins`, `axiom.crash`, `axiom.symbolication`) and
/// register them with ``ErrorRegistry/registerFrameworkDomain(_:)`` when they are first used.
public struct BuiltinDomain: Sendable {
    /// The domain's name: `axiom.client`.
    public let name: String
    /// Its codes, in the order they are documented.
    public let codes: [BuiltinCode]

    /// Declares a domain.
    public init(name: String, codes: [BuiltinCode]) {
        self.name = name
        self.codes = codes
    }

    /// The domain as a catalog of its own, registered under the domain's name as its source.
    public var catalog: ErrorCatalog {
        ErrorCatalog(
            source: name, version: "1.0.0", domains: [name], descriptors: descriptors,
            messages: ["en": messages(\.english), "tr": messages(\.turkish)])
    }

    /// What is wrong between the domain and the errors its type throws, as registered in `registry`: a sample
    /// outside the domain, a declared code no sample reaches, a code without its texts. Empty when they agree.
    /// For the tests of each module that declares a domain.
    public func problems(samples: [any Error], in registry: ErrorRegistry) -> [String] {
        var problems: [String] = []
        var reached: Set<String> = []
        for sample in samples {
            let code = registry.identity(of: sample).code
            if code.domain != name { problems.append("\(sample) is identified as \(code), outside \(name)") }
            reached.insert(code.code)
        }
        let declared = Set(codes.map(\.name))
        for missing in declared.subtracting(reached).sorted() {
            problems.append("no sample reaches \(name)/\(missing)")
        }
        for extra in reached.subtracting(declared).sorted() { problems.append("\(name)/\(extra) is not declared") }
        for entry in codes {
            let code = ErrorCode(name, entry.name)
            guard let descriptor = registry.descriptor(for: code) else {
                problems.append("\(code) is not registered")
                continue
            }
            if descriptor.category != entry.category || descriptor.disposition != entry.disposition
                || descriptor.severity != entry.severity
            {
                problems.append("\(code) is registered with another fate than declared")
            }
            for (locale, texts) in [("en", entry.english), ("tr", entry.turkish)] {
                if registry.message(forKey: descriptor.messageKey, locale: locale) != texts.message
                    || registry.message(forKey: descriptor.messageKey + ".title", locale: locale) != texts.title
                {
                    problems.append("\(code) lacks its \(locale) message or title")
                }
            }
        }
        return problems
    }

    /// The descriptors of the domain's codes. Keys follow the plugins' rule: `error.<domain>.<code>`, its
    /// recovery suggestion under `.recovery` when there is one, and its title under `.title`.
    var descriptors: [ErrorDescriptor] {
        codes.map { entry in
            let key = messageKey(entry.name)
            return ErrorDescriptor(
                code: ErrorCode(name, entry.name), category: entry.category, severity: entry.severity,
                disposition: entry.disposition, retry: entry.retry, messageKey: key,
                recoverySuggestionKey: entry.english.recovery == nil ? nil : key + ".recovery",
                escalation: entry.escalation, httpStatus: entry.httpStatus)
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
public struct BuiltinCode: Sendable {
    /// The code within its domain: `invalidState`.
    public let name: String
    /// What kind of failure it is.
    public let category: ErrorCategory
    /// How serious it is.
    public let severity: ErrorSeverity
    /// What the generic handlers do with it.
    public let disposition: Disposition
    /// How it may be retried; nil: never.
    public var retry: RetryPolicy? = nil
    /// What an escalation by the generic handler turns it into.
    public var escalation: ErrorCode? = nil
    /// The HTTP status a server answers with; nil: the category's default.
    public var httpStatus: Int? = nil
    /// Its English texts.
    public let english: BuiltinTexts
    /// Its Turkish texts.
    public let turkish: BuiltinTexts

    /// Declares a code.
    public init(
        name: String, category: ErrorCategory, severity: ErrorSeverity, disposition: Disposition,
        retry: RetryPolicy? = nil, escalation: ErrorCode? = nil, httpStatus: Int? = nil, english: BuiltinTexts,
        turkish: BuiltinTexts
    ) {
        self.name = name
        self.category = category
        self.severity = severity
        self.disposition = disposition
        self.retry = retry
        self.escalation = escalation
        self.httpStatus = httpStatus
        self.english = english
        self.turkish = turkish
    }
}

/// A code's user-facing texts in one locale: generic, without payload details a catalog cannot know.
public struct BuiltinTexts: Sendable {
    /// What happened.
    public let message: String
    /// What the user can do, if anything.
    public let recovery: String?
    /// A short heading.
    public let title: String

    /// Declares the texts of a code in one locale.
    public init(_ message: String, recovery: String? = nil, title: String) {
        self.message = message
        self.recovery = recovery
        self.title = title
    }
}
