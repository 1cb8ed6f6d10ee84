import Axiom
import Testing

@testable import AxiomPluginKit
@testable import AxiomPlugins

/// A code is declared one way, whoever declares it: the framework's own domains, an application's catalog and a
/// plugin all write a `CodeDefinition`, and the host reads back through the C ABI what the core registers directly.
@Suite("One catalog model")
struct CatalogModelTests {
    /// Codes that use every field: numeric aliases, a retry policy, custom keys, a presentation, an escalation,
    /// secrets, a status, and texts in three locales with and without a recovery.
    static let definitions = [
        CodeDefinition(
            "shop", "OUT_OF_STOCK", numericAliases: [404, 4040], category: .state, severity: .warning,
            disposition: .recover,
            retry: RetryPolicy(
                maxAttempts: 3, backoff: .linear, delay: .milliseconds(250), maxDelay: .seconds(2), jitter: true,
                honorsRetryAfter: false),
            presentation: PresentationRule(style: .banner, duration: .seconds(4), feedback: .light),
            escalation: ErrorCode("shop.orders", "CANCELLED"), isSensitive: true, httpStatus: 409,
            texts: [
                "en": .init(title: "Sold Out", message: "This item is out of stock.", recovery: "Notify Me"),
                "tr": .init(title: "Tükendi", message: "Bu ürün stokta yok.", recovery: "Haber Ver"),
                "de": .init(title: "Ausverkauft", message: "Dieser Artikel ist nicht vorrätig."),
            ]),
        CodeDefinition(
            "shop.orders", "CANCELLED", category: .general, messageKey: "shop.cancelled",
            recoveryKey: "shop.cancelled.again",
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error),
            texts: [
                "en": .init(title: "Cancelled", message: "The order was cancelled.", recovery: "Order Again"),
                "tr": .init(title: "İptal edildi", message: "Sipariş iptal edildi.", recovery: "Yeniden Sipariş Ver"),
            ]),
    ]

    @Test("a code's texts are stored under error.<domain>.<code>, its title and recovery after it")
    func keys() {
        let plain = CodeDefinition(
            "shop", "SOLD_OUT", category: .state, texts: ["en": .init(title: "Sold Out", message: "Gone.")])
        #expect(plain.messageKeys.message == "error.shop.SOLD_OUT")
        #expect(plain.messageKeys.recovery == nil, "no text has a recovery, so there is no recovery key")

        var messages: [String: [String: String]] = [:]
        Self.definitions[0].addTexts(to: &messages)
        #expect(
            messages["en"] == [
                "error.shop.OUT_OF_STOCK": "This item is out of stock.", "error.shop.OUT_OF_STOCK.title": "Sold Out",
                "error.shop.OUT_OF_STOCK.recovery": "Notify Me",
            ])
        #expect(
            messages["de"] == [
                "error.shop.OUT_OF_STOCK": "Dieser Artikel ist nicht vorrätig.",
                "error.shop.OUT_OF_STOCK.title": "Ausverkauft",
            ])

        Self.definitions[1].addTexts(to: &messages)
        #expect(Self.definitions[1].messageKeys == ("shop.cancelled", "shop.cancelled.again"))
        #expect(messages["tr"]?["shop.cancelled.again"] == "Yeniden Sipariş Ver")
    }

    @Test("a text given under a code's key keeps its text over the code's own")
    func givenTextsWin() {
        var messages = ["en": ["error.shop.OUT_OF_STOCK": "Out of stock (edited)."]]
        Self.definitions[0].addTexts(to: &messages)
        #expect(messages["en"]?["error.shop.OUT_OF_STOCK"] == "Out of stock (edited).")
        #expect(messages["en"]?["error.shop.OUT_OF_STOCK.title"] == "Sold Out")
    }

    @Test("a plugin exporting definitions registers what a catalog of the same definitions registers")
    func pluginAndCatalogAgree() throws {
        let plugin = shopPlugin
        let read = try DescriptorReader.catalog(
            DescriptorReader.descriptor(shopExport.descriptor), id: plugin.id, version: plugin.version
        ).get()
        let direct = ErrorCatalog(
            source: plugin.id, version: plugin.version, domains: plugin.domains, definitions: plugin.codes,
            messages: plugin.messages)

        #expect(read.domains == direct.domains)
        #expect(read.messages == direct.messages)
        #expect(read.messages == plugin.allMessages)
        #expect(read.descriptors.map(Fields.init) == direct.descriptors.map(Fields.init))

        // And both registries decide and word the code the same way.
        for catalog in [read, direct] {
            let registry = ErrorRegistry()
            try registry.register(catalog)
            let descriptor = try #require(registry.descriptor(for: ErrorCode("shop", "OUT_OF_STOCK")))
            #expect(registry.descriptor(domain: "shop", numericCode: 4040) === descriptor)
            let german = Localizer(registry: registry, locale: "de-AT")
            #expect(german.title(for: descriptor).text == "Ausverkauft")
            #expect(german.recoverySuggestion(for: descriptor)?.text == "Notify Me", "no German recovery: English")
        }
    }

    @Test("every field of a definition reaches its descriptor")
    func descriptorFields() {
        let definition = Self.definitions[0]
        let descriptor = ErrorDescriptor(definition, source: "org.example.shop")
        #expect(descriptor.code == definition.identity)
        #expect(descriptor.numericAliases == [404, 4040])
        #expect(descriptor.category == .state && descriptor.severity == .warning)
        #expect(descriptor.disposition == .recover && descriptor.retry == definition.retry)
        #expect(descriptor.messageKey == "error.shop.OUT_OF_STOCK")
        #expect(descriptor.recoverySuggestionKey == "error.shop.OUT_OF_STOCK.recovery")
        #expect(descriptor.presentation == definition.presentation)
        #expect(descriptor.escalation == ErrorCode("shop.orders", "CANCELLED"))
        #expect(descriptor.isSensitive && descriptor.httpStatus == 409 && descriptor.source == "org.example.shop")
    }
}

/// The shop's catalog as a plugin declares it.
private let shopPlugin = PluginDefinition(
    id: "org.example.shop", version: "2.1.0", domains: ["shop", "shop.orders"], codes: CatalogModelTests.definitions,
    messages: ["en": ["shop.banner": "Welcome"]])

/// Its export, global as a plugin's is: the descriptor's memory lives as long as the process, as the host expects of a
/// plugin it never unloads.
private let shopExport = PluginExport { shopPlugin }

/// A descriptor's fields as values, to compare two descriptors made apart.
private struct Fields: Equatable {
    let code: ErrorCode
    let numericAliases: [Int]
    let category: ErrorCategory
    let severity: ErrorSeverity
    let disposition: Disposition
    let retry: RetryPolicy?
    let messageKey: String
    let recoverySuggestionKey: String?
    let presentation: PresentationRule?
    let escalation: ErrorCode?
    let isSensitive: Bool
    let httpStatus: Int?
    let source: String

    init(_ descriptor: ErrorDescriptor) {
        code = descriptor.code
        numericAliases = descriptor.numericAliases
        category = descriptor.category
        severity = descriptor.severity
        disposition = descriptor.disposition
        retry = descriptor.retry
        messageKey = descriptor.messageKey
        recoverySuggestionKey = descriptor.recoverySuggestionKey
        presentation = descriptor.presentation
        escalation = descriptor.escalation
        isSensitive = descriptor.isSensitive
        httpStatus = descriptor.httpStatus
        source = descriptor.source
    }
}
