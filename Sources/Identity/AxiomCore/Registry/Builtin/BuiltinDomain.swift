import AxiomCatalog

/// One of the framework's own domains, declared the way any catalog declares its codes: every code a
/// `CodeDefinition` with its fate and its texts per locale, side by side, so that adding a code is one entry in one
/// file.
///
/// The core's domain files (`AxiomDomain.swift`, `ClientDomain.swift`, …) each hold an error type and its
/// ``BuiltinDomain``; `ErrorCatalog+Builtin.swift` lists the domains that make up `ErrorCatalog.builtin`. The
/// modules above the core declare theirs the same way (`axiom.plugins`, `axiom.crash`, `axiom.symbolication`) and
/// register them with `ErrorRegistry.registerFrameworkDomain(_:)` when they are first used.
package struct BuiltinDomain: Sendable {
    /// The domain's name: `axiom.client`.
    package let name: String
    /// Its codes, in the order they are documented; each one's domain is ``name``.
    package let codes: [CodeDefinition]

    /// Declares a domain. Every code must be declared in it: a code of another domain is a mistake in the
    /// declaration, and stops the program.
    package init(name: String, codes: [CodeDefinition]) {
        for code in codes {
            precondition(code.domain == name, "\(code.identity) is declared in the domain \(name)")
        }
        self.name = name
        self.codes = codes
    }

    /// The English texts of `code`, which the `LocalizedError` members of the domain's error type read.
    package func englishTexts(of code: ErrorCode) -> CodeDefinition.Texts? {
        codes.first { $0.code == code.code }?.texts[ErrorCatalog.baseLocale]
    }

    /// The domain as a catalog of its own, registered under the domain's name as its source.
    package var catalog: ErrorCatalog {
        ErrorCatalog(source: name, version: "1.0.0", domains: [name], definitions: codes)
    }

    /// What is wrong between the domain and the errors its type throws, as registered in `registry`: a sample
    /// outside the domain, a declared code no sample reaches, a code without its texts. Empty when they agree.
    /// For the tests of each module that declares a domain.
    package func problems(samples: [any Error], in registry: ErrorRegistry) -> [String] {
        var problems: [String] = []
        var reached: Set<String> = []
        for sample in samples {
            let code = registry.identity(of: sample).code
            if code.domain != name { problems.append("\(sample) is identified as \(code), outside \(name)") }
            reached.insert(code.code)
        }
        let declared = Set(codes.map(\.code))
        for missing in declared.subtracting(reached).sorted() {
            problems.append("no sample reaches \(name)/\(missing)")
        }
        for extra in reached.subtracting(declared).sorted() { problems.append("\(name)/\(extra) is not declared") }
        for entry in codes {
            let code = entry.identity
            guard let descriptor = registry.descriptor(for: code) else {
                problems.append("\(code) is not registered")
                continue
            }
            if descriptor.category != entry.category || descriptor.disposition != entry.disposition
                || descriptor.severity != entry.severity
            {
                problems.append("\(code) is registered with another fate than declared")
            }
            if entry.texts[ErrorCatalog.baseLocale] == nil {
                problems.append("\(code) has no \(ErrorCatalog.baseLocale) texts")
            }
            for (locale, texts) in entry.texts.sorted(by: { $0.key < $1.key }) {
                if registry.message(forKey: descriptor.messageKey, locale: locale) != texts.message
                    || registry.message(forKey: descriptor.messageKey + ".title", locale: locale) != texts.title
                {
                    problems.append("\(code) lacks its \(locale) message or title")
                }
            }
        }
        return problems
    }
}
