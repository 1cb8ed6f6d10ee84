import Axiom
import Testing

@Suite("Catalog load check")
struct CatalogCheckTests {
    @Test("the built-in catalog passes, with every title and Turkish text present")
    func builtin() {
        let report = CatalogCheck.check(.builtin)
        #expect(report.passes)
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    @Test("every catalog of a registry passes")
    func registry() {
        for report in CatalogCheck.check(ErrorRegistry()) {
            #expect(report.passes, "\(report.errors)")
        }
    }

    func catalog(_ messages: [String: [String: String]]) -> ErrorCatalog {
        ErrorCatalog(
            source: "test.check", domains: ["chk"],
            descriptors: [
                ErrorDescriptor(
                    code: ErrorCode("chk", "A"), category: .network, messageKey: "error.chk.a",
                    recoverySuggestionKey: "error.chk.a.recovery"),
                ErrorDescriptor(
                    code: ErrorCode("chk", "B"), category: .general, messageKey: "error.general.unexpected"),
            ],
            messages: messages)
    }

    @Test("a key the descriptors reference must exist in English")
    func missingEnglish() {
        let report = CatalogCheck.check(
            catalog(["en": ["error.chk.a.recovery": "Retry."], "tr": ["error.chk.a": "Ağ hatası."]]),
            in: ErrorRegistry())
        #expect(!report.passes)
        #expect(report.errors.map(\.kind) == [.missingMessage])
        #expect(report.errors.first?.key == "error.chk.a")
        #expect(report.errors.first?.code == ErrorCode("chk", "A"))
    }

    @Test("a missing recovery text and an empty text are errors")
    func recoveryAndEmpty() {
        let report = CatalogCheck.check(
            catalog(["en": ["error.chk.a": "Network error."], "tr": ["error.chk.a": " "]]), in: ErrorRegistry())
        #expect(Set(report.errors.map(\.kind)) == [.missingRecoverySuggestion, .emptyText])
    }

    @Test("keys of another registered catalog count; missing titles and translations are warnings")
    func warnings() {
        let messages = ["en": ["error.chk.a": "Network error.", "error.chk.a.recovery": "Retry."], "tr": [:]]
        // Without the registry, error.general.unexpected is missing.
        #expect(!CatalogCheck.check(catalog(messages)).passes)
        let report = CatalogCheck.check(catalog(messages), in: ErrorRegistry())
        #expect(report.passes)
        #expect(report.warnings.contains { $0.kind == .missingTitle && $0.key == "error.chk.a.title" })
        #expect(
            report.warnings.contains { $0.kind == .missingTranslation && $0.key == "error.chk.a" && $0.locale == "tr" })
    }

    @Test("registerChecked refuses a failing catalog whole and takes a passing one")
    func registerChecked() throws {
        let registry = ErrorRegistry()
        #expect(throws: CatalogLoadError.self) {
            try registry.registerChecked(catalog(["en": [:]]))
        }
        #expect(registry.descriptor(for: ErrorCode("chk", "A")) == nil)
        try registry.registerChecked(
            catalog(["en": ["error.chk.a": "Network error.", "error.chk.a.recovery": "Retry."]]))
        #expect(registry.descriptor(for: ErrorCode("chk", "A")) != nil)
    }
}
