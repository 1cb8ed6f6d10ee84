import Axiom
import CAxiomPluginABI
import Testing

import class AxiomPluginKit.PluginExport

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// The ABI checks on descriptors built in memory: the cases a C compiler fixture cannot easily produce.
@Suite struct DescriptorReaderTests {
    /// C strings for the descriptors; leaked on purpose, as a plugin's would be.
    func text(_ string: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(string)!) }

    func descriptor(language: UInt32 = AXIOM_PLUGIN_LANGUAGE_C, toolchain: String = "C test") -> axiom_plugin_descriptor
    {
        var descriptor = axiom_plugin_descriptor()
        descriptor.struct_size = UInt32(MemoryLayout<axiom_plugin_descriptor>.size)
        descriptor.abi_version = AXIOM_PLUGIN_ABI_VERSION
        descriptor.fingerprint = axiom_plugin_fingerprint(
            abi_hash: text(AXIOM_PLUGIN_ABI_HASH), toolchain: text(toolchain), language: language)
        descriptor.id = text("test.memory")
        descriptor.version = text("1.0.0")
        descriptor.status = AXIOM_PLUGIN_STATUS_OK
        return descriptor
    }

    func check(_ descriptor: axiom_plugin_descriptor) -> PluginRejection.Code? {
        withUnsafePointer(to: descriptor) { DescriptorReader.checkHeader($0)?.0 }
    }

    @Test func aSwiftPluginFromAnotherToolchainIsAFingerprintMismatch() {
        #expect(
            check(descriptor(language: AXIOM_PLUGIN_LANGUAGE_SWIFT, toolchain: "swift-5.10")) == .fingerprintMismatch)
        #expect(check(descriptor(language: AXIOM_PLUGIN_LANGUAGE_SWIFT, toolchain: PluginExport.toolchain)) == nil)
        #expect(check(descriptor(language: 99)) == .fingerprintMismatch)
        #expect(check(descriptor(language: AXIOM_PLUGIN_LANGUAGE_C, toolchain: "gcc 1.0")) == nil)
    }

    @Test func aShorterDescriptorIsAnIncompatibleABI() {
        var short = descriptor()
        short.struct_size = 8
        let failure = withUnsafePointer(to: short) { DescriptorReader.checkHeader($0) }
        #expect(failure?.0 == .incompatibleABI)
        #expect(failure?.1.hasPrefix("descriptor is 8 bytes; ABI version 1 needs at least ") == true)
    }

    @Test func aMissingOrMalformedIDIsRefused() {
        var plugin = descriptor()
        plugin.id = nil
        #expect(DescriptorReader.identity(plugin).failureReason == .invalidPluginID)
        plugin.id = text("no-dots")
        #expect(DescriptorReader.identity(plugin).failureReason == .invalidPluginID)
    }

    @Test func nullListsAndBadValuesAreInvalidCatalogs() {
        var plugin = descriptor()
        plugin.catalog.domain_count = 2  // with a null list
        #expect(DescriptorReader.catalog(plugin, id: "test.memory", version: "1").failureReason == .invalidCatalog)

        let domains = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 1)
        domains.initialize(to: text("memory"))
        var presentation = axiom_plugin_presentation(style: text("modal"), duration_ms: -5, feedback: text("error"))
        var code = axiom_plugin_code()
        code.domain = text("memory")
        code.code = text("X")
        code.category = text("general")
        code.severity = text("error")
        code.disposition = text("default")
        plugin.catalog.domains = UnsafePointer(domains)
        plugin.catalog.domain_count = 1
        withUnsafePointer(to: &presentation) { rule in
            code.presentation = rule
            withUnsafePointer(to: code) { codes in
                plugin.catalog.codes = codes
                plugin.catalog.code_count = 1
                let result = DescriptorReader.catalog(plugin, id: "test.memory", version: "1")
                #expect(result.failureReason == .invalidCatalog)
            }
        }
        code.presentation = nil
        withUnsafePointer(to: code) { codes in
            plugin.catalog.codes = codes
            let catalog = try? DescriptorReader.catalog(plugin, id: "test.memory", version: "1").get()
            // A NULL message key is what the header says it is: error.<category>.<code>.
            #expect(catalog?.descriptors.first?.messageKey == "error.general.X")
            #expect(catalog?.descriptors.first?.source == "test.memory")
        }
    }

    /// A catalog of one domain and the given codes, read while the arrays are alive.
    func readCatalog(
        codes: [axiom_plugin_code], locales: [axiom_plugin_locale] = [], domainCount: Int = 1
    ) -> Result<ErrorCatalog, any Error> {
        var plugin = descriptor()
        let domains = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 1)
        defer { domains.deallocate() }
        domains.initialize(to: text("memory"))
        plugin.catalog.domains = UnsafePointer(domains)
        plugin.catalog.domain_count = domainCount
        return codes.withUnsafeBufferPointer { codeBuffer in
            locales.withUnsafeBufferPointer { localeBuffer in
                plugin.catalog.codes = codeBuffer.baseAddress
                plugin.catalog.code_count = codes.count
                plugin.catalog.locales = localeBuffer.baseAddress
                plugin.catalog.locale_count = locales.count
                return DescriptorReader.catalog(plugin, id: "test.memory", version: "1").mapError { $0 }
            }
        }
    }

    func code(_ name: String = "X") -> axiom_plugin_code {
        var code = axiom_plugin_code()
        code.domain = text("memory")
        code.code = text(name)
        code.category = text("general")
        code.severity = text("error")
        code.disposition = text("default")
        return code
    }

    func detail(_ result: Result<ErrorCatalog, any Error>) -> String? {
        guard case .failure(let error) = result else { return nil }
        return (error as? PluginCatalogError)?.detail
    }

    @Test func aCountAboveIntMaxIsRefusedNotReadAsEmpty() {
        // size_t(-1) imports as Int -1: once read as "no items" and silently dropped.
        #expect(readCatalog(codes: [code()], domainCount: -1).failureReason == .invalidCatalog)
        var withAliases = code()
        withAliases.numeric_alias_count = -1
        let result = readCatalog(codes: [withAliases])
        #expect(result.failureReason == .invalidCatalog)
        #expect(detail(result)?.contains("18446744073709551615 items") == true)
    }

    @Test func nestedCountsShareOneBudget() {
        // Each count alone is under maxItems; together they are not, and nothing is read past the budget.
        let messages = UnsafeMutablePointer<axiom_plugin_message>.allocate(capacity: 1)
        defer { messages.deallocate() }
        messages.initialize(to: axiom_plugin_message(key: text("k"), text: text("v")))
        var locale = axiom_plugin_locale(
            locale: text("en"), messages: UnsafePointer(messages), message_count: DescriptorReader.maxItems)
        var first = locale
        first.message_count = 1
        locale.message_count = DescriptorReader.maxItems - 1
        let result = readCatalog(codes: [code()], locales: [first, locale])
        #expect(result.failureReason == .invalidCatalog)
        #expect(detail(result)?.contains("beyond any sane catalog") == true)
    }

    @Test func textWithoutATerminatorWithinTheLimitIsRefused() {
        let length = DescriptorReader.maxTextLength + 1
        let long = UnsafeMutablePointer<CChar>.allocate(capacity: length + 1)
        defer { long.deallocate() }
        long.initialize(repeating: 0x41, count: length)
        long[length] = 0
        var named = code()
        named.code = UnsafePointer(long)
        let result = readCatalog(codes: [named])
        #expect(result.failureReason == .invalidCatalog)
        #expect(detail(result)?.contains("longer than") == true)
        long[length - 1] = 0  // exactly at the limit: accepted
        #expect((try? readCatalog(codes: [named]).get())?.descriptors.first?.code.code.utf8.count == length - 1)
        #expect(DescriptorReader.text(UnsafePointer(long)) != nil)
        long[length - 1] = 0x41
        #expect(DescriptorReader.text(UnsafePointer(long)) == nil)
    }

    @Test func retryAndPresentationTimesBeyondAYearAreRefused() {
        var slow = code()
        var retry = axiom_plugin_retry(
            max_attempts: .max, backoff: text("exponential"), delay_ms: .max, max_delay_ms: .max, jitter: 0,
            honors_retry_after: 0)
        let refused = withUnsafePointer(to: &retry) { pointer in
            slow.retry = pointer
            return readCatalog(codes: [slow])
        }
        #expect(refused.failureReason == .invalidCatalog)
        retry.delay_ms = DescriptorReader.maxDelayMilliseconds
        retry.max_delay_ms = DescriptorReader.maxDelayMilliseconds
        let accepted = withUnsafePointer(to: &retry) { pointer in
            slow.retry = pointer
            return try? readCatalog(codes: [slow]).get()
        }
        let policy = accepted?.descriptors.first?.retry
        #expect(policy?.maxAttempts == Int(Int32.max))
        // The runtime's exponential backoff saturates at maxDelay instead of overflowing (a year × 2^61 once
        // trapped in Duration's multiplication).
        for retry in [1, 61, 62, 63, Int(Int32.max) - 1] {
            #expect(policy?.delay(forRetry: retry) == .milliseconds(DescriptorReader.maxDelayMilliseconds))
        }

        var shown = code()
        var rule = axiom_plugin_presentation(style: text("toast"), duration_ms: .max, feedback: text("none"))
        let result = withUnsafePointer(to: &rule) { pointer in
            shown.presentation = pointer
            return readCatalog(codes: [shown])
        }
        #expect(result.failureReason == .invalidCatalog)
    }
}

extension Result {
    fileprivate var failureReason: PluginRejection.Code? {
        switch self {
        case .success: nil
        case .failure(let error): (error as Any as? PluginCatalogError)?.reason
        }
    }
}
