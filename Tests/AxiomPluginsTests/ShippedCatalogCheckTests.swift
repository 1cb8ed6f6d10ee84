import Axiom
import Testing

@testable import AxiomPlugins

/// The presentation side of the shipped plugins: their catalogs pass the load check, and every code they
/// ship is presented in Turkish and English without a raw key.
@Suite("Shipped catalogs pass the load check", .disabled(if: Sanitizers.thread, swiftPluginsUnderThreadSanitizer))
struct ShippedCatalogCheckTests {
    let registry = ErrorRegistry()
    let report: PluginLoadReport

    init() {
        report = PluginHost(registry: registry).load(
            PluginSearch(executableDirectory: FixtureDirectory.buildDirectory))
    }

    var pluginCatalogs: [ErrorCatalog] {
        // The framework's own catalogs (the core's, and the host's `axiom.plugins`) are not plugins.
        registry.catalogs.filter { $0.source != ErrorCatalog.builtinSource && $0.source != PluginRejection.domain }
    }

    @Test("every shipped catalog passes, with titles and Turkish for every code")
    func everyCatalogPasses() {
        #expect(report.loaded.count == 5, "\(report.rejected)")
        #expect(pluginCatalogs.count == 5)
        for catalog in pluginCatalogs {
            let check = CatalogCheck.check(catalog, in: registry)
            #expect(check.passes, "\(catalog.source): \(check.errors)")
            #expect(check.warnings.isEmpty, "\(catalog.source): \(check.warnings)")
            #expect(Set(catalog.messages.keys).isSuperset(of: ["en", "tr"]), "\(catalog.source)")
        }
    }

    @Test("every shipped code is presented in Turkish, never as a raw key")
    func turkishPresentations() {
        let keys = Set(registry.catalogs.flatMap { $0.messages.values.flatMap(\.keys) })
        let mapper = ErrorMapper(registry: registry, locale: "tr")
        let shipped = registry.descriptors.filter { $0.source != ErrorCatalog.builtinSource }
        #expect(!shipped.isEmpty)
        for descriptor in shipped {
            let shown = mapper.map(descriptor)
            #expect(shown.locale == "tr", "\(descriptor.code)")
            for text in [shown.title, shown.message] {
                #expect(!text.isEmpty && !keys.contains(text), "\(descriptor.code): '\(text)'")
            }
        }
    }

    @Test("nwc INSUFFICIENT_BALANCE: a Turkish modal until dismissed")
    func insufficientBalance() throws {
        let descriptor = try #require(registry.descriptor(for: ErrorCode("nwc", "INSUFFICIENT_BALANCE")))
        let shown = ErrorMapper(registry: registry, locale: "tr").map(descriptor)
        #expect(shown.title == "Yetersiz Bakiye")
        #expect(shown.message == "Cüzdanınızda bu ödeme için yeterli bakiye yok.")
        #expect(shown.style == .modal)
        #expect(shown.duration == nil)
        #expect(ErrorMapper(registry: registry, locale: "xx").map(descriptor).title == "Insufficient Balance")
    }
}

/// The host runs the load check: a plugin whose codes reference keys without English texts is refused whole.
@Suite("The plugin host checks messages at load")
final class PluginMessageCheckTests {
    let registry = ErrorRegistry()
    let directory: FixtureDirectory

    init() throws { directory = try FixtureDirectory() }

    deinit { directory.remove() }

    @Test("a plugin without English texts is refused and registers nothing")
    func refusedWithoutEnglish() throws {
        let path = try directory.plugin(
            "mute.so", ["FIXTURE_ID=\"test.mute\"", "FIXTURE_DOMAIN=\"mute\"", "FIXTURE_NO_MESSAGES"])
        guard case .failure(let rejection) = PluginHost(registry: registry).load(file: path) else {
            Issue.record("a plugin without English texts was loaded")
            return
        }
        #expect(rejection.code == .invalidCatalog)
        #expect(rejection.detail.contains("error.mute.E000"))
        #expect(registry.descriptor(for: ErrorCode("mute", "E000")) == nil)
        #expect(registry.source(ofDomain: "mute") == nil)
    }

    @Test("the same plugin with its texts loads")
    func loadsWithEnglish() throws {
        let path = try directory.plugin("voiced.so", ["FIXTURE_ID=\"test.voiced\"", "FIXTURE_DOMAIN=\"voiced\""])
        #expect(throws: Never.self) { try PluginHost(registry: registry).load(file: path).get() }
        #expect(registry.descriptor(for: ErrorCode("voiced", "E000")) != nil)
    }
}
