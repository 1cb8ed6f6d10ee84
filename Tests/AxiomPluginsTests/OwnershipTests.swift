import Axiom
import Foundation
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// Who may own what: shipped plugins take precedence, texts belong to their domains, the English check does not
/// depend on the load order, and nobody but the owner can change the folders that lead to a plugin.
@Suite struct OwnershipTests {
    let directory: FixtureDirectory
    let cache: String

    init() throws {
        directory = try FixtureDirectory()
        cache = directory.cache
    }

    func host(_ registry: ErrorRegistry = ErrorRegistry()) -> PluginHost {
        PluginHost(registry: registry, vetting: PluginVetting(cacheDirectory: cache))
    }

    func refusal(_ host: PluginHost, _ path: String) -> PluginRejection? {
        if case .failure(let rejection) = host.load(file: path) { return rejection }
        return nil
    }

    @Test(.disabled(if: Sanitizers.thread, swiftPluginsUnderThreadSanitizer))
    func aPluginClaimingNWCOnTheSearchPathIsRefusedAndTheShippedNWCStays() throws {
        defer { directory.remove() }
        // Named so that it sorts before every shipped file, and found through AXIOM_PLUGIN_PATH's list.
        try directory.plugin("aaa-nwc.so", ["FIXTURE_ID=\"test.impostor\"", "FIXTURE_DOMAIN=\"nwc\""])
        let registry = ErrorRegistry()
        let report = host(registry).load(
            PluginSearch(environmentPaths: [directory.path], executableDirectory: FixtureDirectory.buildDirectory))
        #expect(report.loaded.contains { $0.id == "dev.axiom.plugins.nwc" })
        let refused = try #require(report.rejected.first { $0.path.hasSuffix("aaa-nwc.so") })
        #expect(refused.code == .domainClash)
        #expect(refused.detail.contains("test.impostor") && refused.detail.contains("dev.axiom.plugins.nwc"))
        #expect(refused.detail.contains("shipped with the application"))
        #expect(registry.source(ofDomain: "nwc") == "dev.axiom.plugins.nwc")
        #expect(registry.descriptor(for: ErrorCode("nwc", "E000")) == nil)
    }

    @Test func theExecutableDirectoryLoadsFirstWhateverTheNames() throws {
        defer { directory.remove() }
        let shipped = try FixtureDirectory()
        defer { shipped.remove() }
        try shipped.plugin("zzz.so", ["FIXTURE_ID=\"test.shipped\"", "FIXTURE_DOMAIN=\"shop\""])
        try directory.plugin("aaa.so", ["FIXTURE_ID=\"test.named\"", "FIXTURE_DOMAIN=\"shop\""])
        let registry = ErrorRegistry()
        let report = host(registry).load(PluginSearch(paths: [directory.path], executableDirectory: shipped.path))
        #expect(report.loaded.map(\.id) == ["test.shipped"])
        #expect(report.rejected.map(\.code) == [.domainClash], "\(report.rejected)")
        #expect(report.rejected.first?.path == directory.file("aaa.so"))
        #expect(registry.source(ofDomain: "shop") == "test.shipped")
    }

    @Test func aShippedPluginNamedAgainLoadsOnceAndIsNotReported() throws {
        defer { directory.remove() }
        let shipped = try FixtureDirectory()
        defer { shipped.remove() }
        let path = try shipped.plugin("libshop.so", ["FIXTURE_ID=\"test.shop\"", "FIXTURE_DOMAIN=\"shop\""])
        let report = host().load(PluginSearch(paths: [path], executableDirectory: shipped.path))
        #expect(report.loaded.map(\.path) == [path])
        #expect(report.rejected.isEmpty)
    }

    @Test func aTextForAnotherDomainsKeyIsRefused() throws {
        defer { directory.remove() }
        let hijack = try directory.plugin(
            "texts.so",
            ["FIXTURE_ID=\"zz.texts\"", "FIXTURE_DOMAIN=\"zz.texts\"", "FIXTURE_EXTRA_KEY=\"error.nwc.RATE_LIMITED\""])
        let registry = ErrorRegistry()
        let rejection = try #require(refusal(host(registry), hijack))
        #expect(rejection.code == .invalidCatalog)
        #expect(rejection.detail.contains("ships texts for keys that are not its own"))
        #expect(rejection.detail.contains("error.nwc.RATE_LIMITED") && rejection.detail.contains("zz.texts"))
        #expect(registry.message(forKey: "error.nwc.RATE_LIMITED", locale: "en") == nil)
        #expect(registry.source(ofDomain: "zz.texts") == nil)
    }

    @Test func codesReferencingAnotherDomainsKeysCannotShipTextsForThem() throws {
        defer { directory.remove() }
        let owner = try directory.plugin("alpha.so", ["FIXTURE_ID=\"test.alpha\"", "FIXTURE_DOMAIN=\"alpha\""])
        let borrower = try directory.plugin(
            "beta.so", ["FIXTURE_ID=\"test.beta\"", "FIXTURE_DOMAIN=\"beta\"", "FIXTURE_KEY_DOMAIN=\"alpha\""])
        let registry = ErrorRegistry()
        let host = host(registry)
        _ = try host.load(file: owner).get()
        let rejection = try #require(refusal(host, borrower))
        #expect(rejection.code == .invalidCatalog)
        #expect(rejection.detail.contains("ships texts for keys that are not its own"))
        #expect(rejection.detail.contains("belongs to test.alpha"))
        #expect(registry.message(forKey: "error.alpha.E000", locale: "en") == "Fixture error 0.")
    }

    /// A registry where the application owns the domain "pay".
    static func applicationRegistry() throws -> ErrorRegistry {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "app.payments", domains: ["pay"],
                descriptors: [ErrorDescriptor(code: ErrorCode("pay", "DECLINED"), category: .api)],
                messages: ["en": ["error.pay.DECLINED": "Declined."]]))
        return registry
    }

    @Test func aShippedPluginRefusedAtRegistrationAndNamedAgainIsReportedAsTriedAndRefused() throws {
        defer { directory.remove() }
        let shipped = try FixtureDirectory()
        defer { shipped.remove() }
        let path = try shipped.plugin("libpay.so", ["FIXTURE_ID=\"test.pay\"", "FIXTURE_DOMAIN=\"pay\""])
        let report = host(try Self.applicationRegistry())
            .load(PluginSearch(paths: [path], executableDirectory: shipped.path))
        #expect(report.loaded.isEmpty)
        #expect(report.rejected.map(\.code) == [.domainClash, .duplicateFile], "\(report.rejected)")
        #expect(report.rejected.map(\.path) == [path, path])
        #expect(report.rejected.last?.detail == "the same file (device and inode) was already tried and refused")
    }

    /// A search registers its plugins together, yet each gets the answer it would get loaded alone, in order: a plugin
    /// refused at registration neither owns the domain of the keys a later plugin ships texts for, nor its id.
    @Test func aPluginRefusedAtRegistrationOwnsNothingForThePluginsAfterIt() throws {
        defer { directory.remove() }
        // Refused: "pay" is the application's. Its other domain, "ship", stays free.
        let clashing = try directory.plugin(
            "a-clash.so", ["FIXTURE_ID=\"test.alpha\"", "FIXTURE_DOMAIN=\"ship\"", "FIXTURE_DOMAIN2=\"pay\""])
        // Its codes reference keys under "ship", and it ships their texts: its own to ship while nobody owns "ship".
        let borrower = try directory.plugin(
            "b-borrower.so", ["FIXTURE_ID=\"test.beta\"", "FIXTURE_DOMAIN=\"beta\"", "FIXTURE_KEY_DOMAIN=\"ship\""])
        // The refused plugin's id, on a plugin of another domain.
        let sameID = try directory.plugin("c-same-id.so", ["FIXTURE_ID=\"test.alpha\"", "FIXTURE_DOMAIN=\"gamma\""])
        let together = try Self.applicationRegistry()
        let report = host(together).load(PluginSearch(paths: [directory.path]))
        #expect(report.loaded.map(\.path) == [borrower, sameID])
        #expect(report.loaded.map(\.id) == ["test.beta", "test.alpha"])
        #expect(report.rejected.map(\.path) == [clashing])
        #expect(report.rejected.map(\.code) == [.domainClash], "\(report.rejected)")
        #expect(together.source(ofDomain: "ship") == nil)
        #expect(together.source(ofDomain: "gamma") == "test.alpha")
        #expect(together.message(forKey: "error.ship.E000", locale: "en") == "Fixture error 0.")

        let oneByOne = try Self.applicationRegistry()
        let alone = host(oneByOne)
        let results = [clashing, borrower, sameID].map { alone.load(file: $0) }
        #expect(results.map { (try? $0.get())?.id } == [nil, "test.beta", "test.alpha"])
        #expect(alone.loaded.map(\.path) == report.loaded.map(\.path))
        let codes = { (registry: ErrorRegistry) in registry.descriptors.map { "\($0.code) \($0.source)" } }
        #expect(codes(oneByOne) == codes(together))
    }

    @Test(arguments: [false, true])
    func theEnglishCheckGivesOneAnswerWhateverTheOrder(borrowerFirst: Bool) throws {
        defer { directory.remove() }
        // The borrower's codes reference the owner's keys and ship no text: loaded after the owner it used to pass
        // on the owner's texts, loaded before it was refused.
        let owner = try directory.plugin("alpha.so", ["FIXTURE_ID=\"test.alpha\"", "FIXTURE_DOMAIN=\"alpha\""])
        let borrower = try directory.plugin(
            "beta.so",
            [
                "FIXTURE_ID=\"test.beta\"", "FIXTURE_DOMAIN=\"beta\"", "FIXTURE_KEY_DOMAIN=\"alpha\"",
                "FIXTURE_NO_MESSAGES",
            ])
        let host = host()
        let results = (borrowerFirst ? [borrower, owner] : [owner, borrower]).map { host.load(file: $0) }
        let byPath = Dictionary(
            uniqueKeysWithValues: zip(borrowerFirst ? [borrower, owner] : [owner, borrower], results))
        #expect((try? byPath[owner]?.get())?.id == "test.alpha")
        guard case .failure(let rejection)? = byPath[borrower] else {
            Issue.record("the borrower loaded")
            return
        }
        #expect(rejection.code == .invalidCatalog)
        #expect(rejection.detail.contains("error.alpha.E000"))
    }

    @Test func aWorldWritableFolderAboveThePluginIsRefusedUnlessSticky() throws {
        defer { directory.remove() }
        let parent = directory.file("open")
        #expect(mkdir(parent, 0o755) == 0)
        #expect(mkdir(parent + "/plugins", 0o755) == 0)
        let inner = FixtureDirectory(existing: parent + "/plugins")
        let path = try inner.plugin("deep.so", ["FIXTURE_ID=\"test.deep\"", "FIXTURE_DOMAIN=\"deep\""])
        chmod(parent, 0o777)
        defer { chmod(parent, 0o755) }
        let rejection = try #require(refusal(host(), path))
        #expect(rejection.code == .unsafePermissions)
        #expect(rejection.detail.contains("/open, a folder above the plugin,"))
        #expect(rejection.detail.contains("without the sticky bit"))
        // With the sticky bit, owned by the current user: as /tmp, nobody can move the plugin's folder away.
        chmod(parent, 0o1777)
        #expect((try? host().load(file: path).get())?.id == "test.deep")
    }

    @Test func aGroupWritableFileSaysGroup() throws {
        defer { directory.remove() }
        let path = try directory.plugin("group.so")
        chmod(path, 0o775)
        let rejection = try #require(refusal(host(), path))
        #expect(rejection.code == .unsafePermissions)
        #expect(rejection.detail.hasPrefix("the file is writable by its group (mode 775)"))
    }

    @Test func theScannerMissingRefusesClearlyAndInProcessIsAnOptIn() throws {
        defer { directory.remove() }
        let path = try directory.plugin("good.so", ["FIXTURE_ID=\"test.good\"", "FIXTURE_DOMAIN=\"good\""])
        let missing = PluginHost(
            registry: ErrorRegistry(),
            vetting: PluginVetting(scannerPath: directory.file("no-scanner"), cacheDirectory: nil))
        let rejection = try #require(refusal(missing, path))
        #expect(rejection.code == .scannerUnavailable)
        #expect(rejection.detail.contains("no-scanner") && rejection.detail.contains("inProcess"))
        let inProcess = PluginHost(registry: ErrorRegistry(), vetting: .inProcess)
        #expect((try? inProcess.load(file: path).get())?.id == "test.good")
        #expect(inProcess.scannerLaunchCount == 0)
    }
}

@Suite struct DiagnosticTextTests {
    @Test func anExecutableWithoutTheEntryIsToldToLinkWithShared() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        let source = directory.file("main.c")
        try "int main(void) { return 0; }\n".write(toFile: source, atomically: true, encoding: .utf8)
        let output = directory.file("program.so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["cc", "-fPIE", "-pie", source, "-o", output]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        chmod(output, 0o755)
        guard
            case .failure(let rejection) = PluginHost(registry: ErrorRegistry(), vetting: .inProcess).load(file: output)
        else {
            Issue.record("an executable loaded as a plugin")
            return
        }
        #expect(rejection.code == .notAPlugin)
        #expect(rejection.detail.hasPrefix("axiom_plugin_entry_v1 "), "\(rejection.detail)")
        #expect(rejection.detail.contains("position-independent executable") && rejection.detail.contains("-shared"))
    }

    @Test func aCatalogRefusalNamesThePluginOnce() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        let host = PluginHost(registry: ErrorRegistry(), vetting: PluginVetting(cacheDirectory: nil))
        for (name, defines) in [
            ("silent.so", ["FIXTURE_ID=\"test.silent\"", "FIXTURE_DOMAIN=\"silent\"", "FIXTURE_NO_MESSAGES"]),
            ("odd.so", ["FIXTURE_ID=\"test.odd\"", "FIXTURE_DOMAIN=\"odd\"", "FIXTURE_CATEGORY=\"weather\""]),
        ] {
            let path = try directory.plugin(name, defines)
            guard case .failure(let rejection) = host.load(file: path) else {
                Issue.record("\(name) loaded")
                continue
            }
            #expect(rejection.code == .invalidCatalog)
            let id = name == "silent.so" ? "test.silent" : "test.odd"
            #expect(rejection.detail.components(separatedBy: id).count == 2, "\(rejection.detail)")
        }
    }

    @Test func aNonPIEExecutableReadsAsPlainEnglish() throws {
        let header = FixtureDirectory.elfHeader(class: 2, machine: 62, type: 2)
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        let path = try directory.write("program.so", header)
        guard case .failure(let refused) = PluginHost(registry: ErrorRegistry()).load(file: path) else {
            Issue.record("an executable header loaded")
            return
        }
        #expect(refused.code == .notAPlugin)
        #expect(refused.detail == "the file is an executable, not a shared library; link the plugin with -shared")
    }
}
