import Testing

@testable import Axiom
@testable import AxiomCore

/// Each built-in domain is declared in one file: its error type, and its codes with their fate and texts.
/// These tests hold the two halves to each other from the declarations alone, so a code added to a domain's
/// file is checked without a test naming it.
@Suite("Built-in domains")
struct BuiltinDomainTests {
    @Test("every error a built-in type can throw is registered, under the domain whose file declares it")
    func everySampleIsRegistered() throws {
        let registry = ErrorRegistry()
        for (domain, samples) in ErrorCatalog.builtinDomains {
            #expect(registry.source(ofDomain: domain.name) == ErrorCatalog.builtinSource)
            var reached: Set<String> = []
            for sample in samples {
                let identity = registry.identity(of: sample)
                #expect(identity.code.domain == domain.name, "\(sample) is in \(identity.code.domain)")
                let descriptor = try #require(registry.descriptor(for: identity.code), "\(identity.code)")
                #expect(descriptor.source == ErrorCatalog.builtinSource)
                reached.insert(identity.code.code)
            }
            // A declared code that no sample reaches is a code the type cannot throw, or a missing sample.
            #expect(reached == Set(domain.codes.map(\.code)), "\(domain.name)")
        }
    }

    @Test("every built-in code carries what its entry declares, with a message, title and translation")
    func everyEntryIsWhole() throws {
        let registry = ErrorRegistry()
        for (domain, _) in ErrorCatalog.builtinDomains {
            for entry in domain.codes {
                let code = entry.identity
                let descriptor = try #require(registry.descriptor(for: code), "\(code)")
                #expect(descriptor.category == entry.category)
                #expect(descriptor.severity == entry.severity)
                #expect(descriptor.disposition == entry.disposition)
                #expect(descriptor.retry == entry.retry)
                #expect(descriptor.escalation == entry.escalation)
                if let escalation = entry.escalation {
                    #expect(registry.descriptor(for: escalation) != nil, "\(code) escalates to an unknown code")
                }
                #expect(Set(entry.texts.keys) == ["en", "tr"], "\(code) is declared in English and Turkish")
                for (locale, texts) in entry.texts {
                    let english = Localizer(registry: registry, locale: locale)
                    #expect(english.message(for: descriptor).text == texts.message, "\(code) in \(locale)")
                    #expect(english.title(for: descriptor).text == texts.title, "\(code) in \(locale)")
                    #expect(english.recoverySuggestion(for: descriptor)?.text == texts.recovery, "\(code) in \(locale)")
                    #expect(!texts.message.isEmpty && !texts.title.isEmpty)
                }
                #expect(Set(entry.texts.values.map { $0.recovery == nil }).count == 1, "\(code)")
            }
        }
    }

}
