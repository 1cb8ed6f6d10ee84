import Axiom
import MetricsTestKit
import Testing

@testable import AxiomCore

/// Tests whose memory another test measures take turns with it: a catalog of 100,000 codes stays registered (a
/// registry never frees its descriptors), and would count as the growth of a test that measures resident memory while
/// it runs.
enum MemoryHeavyTests {
    /// One test at a time, the others queued in the order they asked: the framework's own concurrency limiter. A test
    /// waiting for its turn is suspended, not blocked: the concurrency pool has one thread per core, and a test
    /// blocked on a semaphore held one of the two this machine has, so every other test of the process ran on the one
    /// left while the turn's holder worked.
    static let turn = try! ConcurrencyLimiter(
        key: "memory-heavy tests", limit: 1, queueLimit: 16, metrics: TestMetrics())
}

@Suite("Large catalogs")
struct LargeCatalogTests {
    /// A code as a peer spells it: longer than a string stored inline, built at run time.
    static func code(_ index: Int) -> String { "PAYMENT_DECLINED_\(index)" }

    static func definitions(_ count: Int, domain: String = "large") -> [CodeDefinition] {
        (0..<count).map { index in
            CodeDefinition(
                domain, code(index), numericAliases: [100_000 + index], category: .api,
                texts: [
                    "en": .init(title: "Declined \(index)", message: "Payment \(index) was declined."),
                    "tr": .init(title: "Reddedildi \(index)", message: "Ödeme \(index) reddedildi."),
                ])
        }
    }

    /// The size of the largest catalogs: 100,000 codes, or 20,000 under a sanitizer, whose every memory access costs
    /// several times more (still a size at which the catalog's texts, built quadratically before, took six seconds in
    /// a release build); the run without a sanitizer holds the full size.
    static let largest = Sanitizers.any ? 20_000 : 100_000

    @Test(
        "a catalog of 100,000 definitions (20,000 under a sanitizer) is declared and registered with every code, alias and text"
    )
    func hundredThousandDefinitions() async throws {
        try await MemoryHeavyTests.turn.acquire()
        defer { MemoryHeavyTests.turn.release() }
        let count = Self.largest
        let registry = ErrorRegistry()
        try registry.register(ErrorCatalog(source: "large", domains: ["large"], definitions: Self.definitions(count)))
        // Wrong answers are collected, so that a failure names the first few instead of 600,000 expectations.
        var wrong: [String] = []
        for index in 0..<count {
            let code = ErrorCode("large", Self.code(index))
            guard let descriptor = registry.descriptor(for: code), descriptor.code == code else {
                wrong.append("\(code): no descriptor")
                continue
            }
            let key = descriptor.messageKey
            let found = [
                registry.descriptor(domain: "large", numericCode: 100_000 + index) === descriptor,
                registry.descriptor(for: DomainError(domain: "large", numericCode: 100_000 + index)) === descriptor,
                registry.descriptor(for: DomainError(domain: "large", code: Self.code(index))) === descriptor,
                registry.message(forKey: key, locale: "en") == "Payment \(index) was declined.",
                registry.message(forKey: key + ".title", locale: "en") == "Declined \(index)",
                registry.message(forKey: key, locale: "tr") == "Ödeme \(index) reddedildi.",
            ]
            if found.contains(false) { wrong.append("\(code): \(found)") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, first: \(wrong.prefix(5))")
        #expect(registry.descriptor(for: ErrorCode("large", Self.code(count))) == nil)
    }

    @Test("a catalog of 100,000 descriptors (20,000 under a sanitizer) with a text table registers every code and text")
    func hundredThousandDescriptors() async throws {
        try await MemoryHeavyTests.turn.acquire()
        defer { MemoryHeavyTests.turn.release() }
        let count = Self.largest
        let definitions = Self.definitions(count, domain: "table")
        var messages: [String: [String: String]] = ["en": ["error.shared": "Shared."]]
        for definition in definitions { definition.addTexts(to: &messages) }
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "table", domains: ["table"], descriptors: definitions.map { ErrorDescriptor($0) },
                messages: messages))
        let wrong = (0..<count).filter { index in
            guard let descriptor = registry.descriptor(for: ErrorCode("table", Self.code(index))) else { return true }
            return registry.message(forKey: descriptor.messageKey, locale: "en") != "Payment \(index) was declined."
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, first: \(wrong.prefix(5))")
        #expect(registry.message(forKey: "error.shared", locale: "en") == "Shared.")
    }

    @Test("a text given in a catalog's messages keeps it over a definition's own, at any size")
    func givenTextsWinAtScale() async throws {
        try await MemoryHeavyTests.turn.acquire()
        defer { MemoryHeavyTests.turn.release() }
        let definitions = Self.definitions(10_000, domain: "given")
        let key = "error.given.\(Self.code(9_999))"
        let catalog = ErrorCatalog(
            source: "given", domains: ["given"], definitions: definitions, messages: ["en": [key: "Given."]])
        #expect(catalog.messages["en"]?[key] == "Given.")
        #expect(catalog.messages["en"]?.count == 20_000)
        #expect(catalog.messages["tr"]?.count == 20_000)
    }

    @Test("domain errors resolve each to its own code, whatever the registry's size and the codes' spelling")
    func domainErrorsAtEverySize() async throws {
        try await MemoryHeavyTests.turn.acquire()
        defer { MemoryHeavyTests.turn.release() }
        for count in [1, 10, 500, 4_000] {
            let registry = ErrorRegistry()
            let short = (0..<count).map { "CODE_\($0)" }  // inline strings: the fast table's keys
            let long = (0..<count).map(Self.code)  // built on the heap: the snapshot's table
            try registry.register(
                ErrorCatalog(
                    source: "peer", domains: ["peer"],
                    definitions: (short + long).map { CodeDefinition("peer", $0, category: .api) }))
            // Twice: the first lookup of a code fills the fast table, the second reads it.
            for _ in 0..<2 {
                let wrong = (short + long).filter { code in
                    registry.descriptor(for: DomainError(domain: "peer", code: code)).code != ErrorCode("peer", code)
                }
                #expect(wrong.isEmpty, "\(count) codes: \(wrong.count) wrong, first: \(wrong.prefix(5))")
                for code in ["CODE_\(count)", Self.code(count), "", "PAYMENT_DECLINED_", "CODE_1 "] {
                    #expect(
                        registry.descriptor(for: DomainError(domain: "peer", code: code)).code
                            == ErrorCatalog.unknownCode)
                    #expect(registry.descriptor(for: ErrorCode("peer", code)) == nil)
                }
                #expect(registry.descriptor(for: ErrorCode("peer.other", Self.code(0))) == nil)
            }
        }
    }

    @Test("an identity an application teaches for DomainError is the one its lookups take")
    func taughtDomainErrorIdentity() throws {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "peer", domains: ["peer"],
                definitions: [
                    CodeDefinition("peer", Self.code(1), category: .api),
                    CodeDefinition("peer", "MAPPED_BY_THE_APPLICATION", category: .network),
                ]))
        let error = DomainError(domain: "peer", code: Self.code(1))
        #expect(registry.descriptor(for: error).code == ErrorCode("peer", Self.code(1)))
        registry.registerIdentity(of: DomainError.self) { _ in
            ErrorIdentity(code: ErrorCode("peer", "MAPPED_BY_THE_APPLICATION"))
        }
        #expect(registry.descriptor(for: error).code == ErrorCode("peer", "MAPPED_BY_THE_APPLICATION"))
        #expect(registry.identity(of: error).code == ErrorCode("peer", "MAPPED_BY_THE_APPLICATION"))
        // Another registry still reads the error's own code.
        #expect(ErrorRegistry().descriptor(for: error).code == ErrorCatalog.unknownCode)
    }

    @Test("a code resolves under every spelling Swift holds equal to it, as a dictionary key would")
    func canonicallyEquivalentCodes() throws {
        let registry = ErrorRegistry()
        let composed = "ÖDEME_REDDEDİLDİ_UZUN_KOD"  // Ö as one scalar
        let decomposed = "O\u{308}DEME_REDDEDİLDİ_UZUN_KOD"  // O and a combining diaeresis
        let kelvin = "\u{212A}ELVIN_TEMPERATURE_TOO_HIGH"  // the Kelvin sign is canonically K
        try registry.register(
            ErrorCatalog(
                source: "intl", domains: ["intl"],
                definitions: [
                    CodeDefinition("intl", composed, category: .api),
                    CodeDefinition("intl", kelvin, category: .api),
                ]))
        #expect(registry.descriptor(for: ErrorCode("intl", decomposed))?.code.code == composed)
        #expect(registry.descriptor(for: DomainError(domain: "intl", code: decomposed)).code.code == composed)
        #expect(registry.descriptor(for: ErrorCode("intl", "KELVIN_TEMPERATURE_TOO_HIGH"))?.code.code == kelvin)
        #expect(registry.descriptor(for: ErrorCode("intl", "OTHER_CODE_THAT_IS_LONG")) == nil)
    }

    @Test("more registered codes than the fast table holds all resolve, and the table stays within its bound")
    func moreCodesThanTheFastTable() async throws {
        try await MemoryHeavyTests.turn.acquire()
        defer { MemoryHeavyTests.turn.release() }
        let count = ErrorRegistry.fastCodeLimit + 1_000
        let registry = ErrorRegistry()
        // Codes of at most 15 bytes are stored inline, so every one is a fast-table key.
        let codes = (0..<count).map { "F\($0)" }
        try registry.register(
            ErrorCatalog(
                source: "fast", domains: ["fast"], definitions: codes.map { CodeDefinition("fast", $0, category: .api) }
            ))
        for _ in 0..<2 {
            let wrong = codes.filter { registry.descriptor(for: ErrorCode("fast", $0))?.code.code != $0 }
            #expect(wrong.isEmpty, "\(wrong.count) wrong, first: \(wrong.prefix(5))")
        }
        #expect(registry.fastTableCounts.entries <= ErrorRegistry.fastCodeLimit)
    }
}
