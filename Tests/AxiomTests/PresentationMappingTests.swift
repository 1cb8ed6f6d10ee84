import Axiom
import Testing

@Suite("Error mapper and localization")
struct PresentationMappingTests {
    @Test("category defaults follow the documented table")
    func categoryDefaults() {
        func rule(_ category: ErrorCategory) -> PresentationRule { .categoryDefault(category) }
        #expect(rule(.validation) == PresentationRule(style: .inline, duration: .seconds(2), feedback: .none))
        #expect(rule(.network) == PresentationRule(style: .banner, duration: .seconds(3), feedback: .medium))
        #expect(rule(.credit) == PresentationRule(style: .modal, duration: nil, feedback: .error))
        #expect(rule(.api) == PresentationRule(style: .banner, duration: .seconds(4), feedback: .error))
        #expect(rule(.auth) == PresentationRule(style: .fullScreen, duration: nil, feedback: .error))
        #expect(rule(.general) == PresentationRule(style: .toast, duration: .seconds(3), feedback: .light))
        for category in [ErrorCategory.capability, .state, .storage, .configuration, .cancellation] {
            #expect(rule(category) == .unknown)
        }
    }

    @Test("a descriptor's own rule beats its category's")
    func descriptorRule() throws {
        let registry = ErrorRegistry()
        let modal = PresentationRule(style: .modal, duration: .seconds(4), feedback: .error)
        try registry.register(
            ErrorCatalog(
                source: "test.rules", domains: ["shop"],
                descriptors: [
                    ErrorDescriptor(code: ErrorCode("shop", "DOWN"), category: .api, presentation: modal),
                    ErrorDescriptor(code: ErrorCode("shop", "SLOW"), category: .api),
                ],
                messages: ["en": ["error.shop.DOWN": "The shop is down.", "error.shop.SLOW": "The shop is slow."]]))
        let mapper = ErrorMapper(registry: registry)
        #expect(mapper.map(DomainError(domain: "shop", code: "DOWN")).rule == modal)
        #expect(mapper.map(DomainError(domain: "shop", code: "SLOW")).rule == .categoryDefault(.api))
    }

    /// A registry with one test domain whose texts are deliberately incomplete.
    func partialRegistry() throws -> ErrorRegistry {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.partial", domains: ["pay"],
                descriptors: [
                    ErrorDescriptor(
                        code: ErrorCode("pay", "BOTH"), category: .credit, messageKey: "error.pay.both",
                        recoverySuggestionKey: "error.pay.both.recovery"),
                    ErrorDescriptor(code: ErrorCode("pay", "EN_ONLY"), category: .network, messageKey: "error.pay.en"),
                    ErrorDescriptor(code: ErrorCode("pay", "NONE"), category: .auth, messageKey: "error.pay.none"),
                    ErrorDescriptor(code: ErrorCode("pay", "BLANK"), category: .api, messageKey: "error.pay.blank"),
                ],
                messages: [
                    "en": [
                        "error.pay.both": "Not enough balance.", "error.pay.both.title": "Balance",
                        "error.pay.both.recovery": "Top up your wallet.", "error.pay.en": "The wallet is offline.",
                        "error.pay.blank": "The payment service failed.",
                    ],
                    "tr": [
                        "error.pay.both": "Bakiye yetersiz.", "error.pay.both.title": "Bakiye",
                        "error.pay.both.recovery": "Cüzdanınıza para yükleyin.", "error.pay.blank": "  ",
                    ],
                ]))
        return registry
    }

    @Test("Turkish texts when the catalog has them")
    func turkish() throws {
        let shown = ErrorMapper(registry: try partialRegistry(), locale: "tr").map(
            DomainError(domain: "pay", code: "BOTH"))
        #expect(shown.title == "Bakiye")
        #expect(shown.message == "Bakiye yetersiz.")
        #expect(shown.recoverySuggestion == "Cüzdanınıza para yükleyin.")
        #expect(shown.locale == "tr")
        #expect(shown.style == .modal)
        #expect(shown.duration == nil)
    }

    @Test("tr falls back to en, then to error.general.unexpected; titles to the category's")
    func fallbacks() throws {
        let mapper = ErrorMapper(registry: try partialRegistry(), locale: "tr")

        let englishOnly = mapper.map(DomainError(domain: "pay", code: "EN_ONLY"))
        #expect(englishOnly.message == "The wallet is offline.")
        #expect(englishOnly.locale == "en")
        #expect(englishOnly.title == "Bağlantı sorunu")  // the network category's title, in Turkish
        #expect(englishOnly.recoverySuggestion == nil)

        let none = mapper.map(DomainError(domain: "pay", code: "NONE"))
        #expect(none.message == "Bir şeyler ters gitti. Lütfen yeniden deneyin.")
        #expect(none.title == "Oturum açmanız gerekiyor")

        // A blank Turkish text counts as missing.
        #expect(mapper.map(DomainError(domain: "pay", code: "BLANK")).message == "The payment service failed.")

        let english = ErrorMapper(registry: try partialRegistry(), locale: "en")
        #expect(
            english.map(DomainError(domain: "pay", code: "NONE")).message == "Something went wrong. Please try again.")
    }

    @Test("unknown locales fall back to English; regional ones to their language")
    func locales() throws {
        let registry = try partialRegistry()
        let error = DomainError(domain: "pay", code: "BOTH")
        #expect(ErrorMapper(registry: registry, locale: "xx").map(error).message == "Not enough balance.")
        #expect(ErrorMapper(registry: registry, locale: "").map(error).message == "Not enough balance.")
        #expect(ErrorMapper(registry: registry, locale: "tr-TR").map(error).message == "Bakiye yetersiz.")
        #expect(ErrorMapper(registry: registry, locale: "tr_TR").map(error).message == "Bakiye yetersiz.")
        #expect(Localizer.chain(for: "tr_TR") == ["tr_TR", "tr-tr", "tr", "en"])
    }

    @Test(
        "a locale's chain is the locale, its normal form, its language and English, once each",
        arguments: [
            ("en", ["en"]), ("", ["en"]), ("tr", ["tr", "en"]), ("tr-tr", ["tr-tr", "tr", "en"]),
            ("en-us", ["en-us", "en"]), ("zh-hant-tw", ["zh-hant-tw", "zh", "en"]), ("-x", ["-x", "en"]),
            ("TR", ["TR", "tr", "en"]), ("tr_TR", ["tr_TR", "tr-tr", "tr", "en"]), (" tr ", ["tr", "en"]),
            ("Tr-TR", ["Tr-TR", "tr-tr", "tr", "en"]),
        ])
    func chains(locale: String, chain: [String]) {
        #expect(Localizer.chain(for: locale) == chain)
    }

    @Test("no built-in error shows an empty text or a raw key, in any locale")
    func neverRawKeys() {
        let registry = ErrorRegistry()
        let keys = Set(registry.catalogs.flatMap { $0.messages.values.flatMap(\.keys) })
        for locale in ["en", "tr", "de", ""] {
            let mapper = ErrorMapper(registry: registry, locale: locale)
            for descriptor in registry.descriptors {
                let shown = mapper.map(descriptor)
                for text in [shown.title, shown.message] + (shown.recoverySuggestion.map { [$0] } ?? []) {
                    #expect(!text.trimmingCharacters().isEmpty, "\(descriptor.code) in \(locale)")
                    #expect(!keys.contains(text) && !text.hasPrefix("error."), "\(descriptor.code) in \(locale)")
                }
                if locale == "tr" { #expect(shown.locale == "tr", "\(descriptor.code) has no Turkish text") }
            }
        }
    }

    @Test("an unidentifiable error maps to the unexpected-error presentation")
    func unknownError() {
        struct Strange: Error {}
        let shown = ErrorMapper(registry: ErrorRegistry(), locale: "tr").map(Strange())
        #expect(shown.message == "Bir şeyler ters gitti. Lütfen yeniden deneyin.")
        #expect(shown.style == .toast)
        #expect(shown.duration == .seconds(3))
    }
}

extension String {
    func trimmingCharacters() -> String {
        String(unicodeScalars.filter { !$0.properties.isWhitespace })
    }
}
