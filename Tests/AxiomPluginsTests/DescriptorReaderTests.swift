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

    func check(_ descriptor: axiom_plugin_descriptor) -> PluginRejection.Reason? {
        withUnsafePointer(to: descriptor) { DescriptorReader.checkHeader($0)?.0 }
    }

    @Test func aSwiftPluginFromAnotherToolchainIsAFingerprintMismatch() {
        #expect(
            check(descriptor(language: AXIOM_PLUGIN_LANGUAGE_SWIFT, toolchain: "swift-5.10")) == .fingerprintMismatch)
        #expect(check(descriptor(language: AXIOM_PLUGIN_LANGUAGE_SWIFT, toolchain: PluginExport.toolchain)) == nil)
        #expect(check(descriptor(language: 99)) == .fingerprintMismatch)
        #expect(check(descriptor(language: AXIOM_PLUGIN_LANGUAGE_C, toolchain: "gcc 1.0")) == nil)
    }

    @Test func aShorterDescriptorIsAStructSizeMismatch() {
        var short = descriptor()
        short.struct_size = 8
        #expect(check(short) == .structSizeMismatch)
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
            #expect(catalog?.descriptors.first?.messageKey == "error.general.X")
            #expect(catalog?.descriptors.first?.source == "test.memory")
        }
    }
}

extension Result {
    fileprivate var failureReason: PluginRejection.Reason? {
        switch self {
        case .success: nil
        case .failure(let error): (error as? PluginCatalogError)?.reason
        }
    }
}
