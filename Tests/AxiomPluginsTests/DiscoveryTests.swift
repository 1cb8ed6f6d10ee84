import Axiom
import Foundation
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DiscoveryTests {
    @Test func aNamedDirectoryReportsEveryFileThatIsNotAPlugin() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        try directory.plugin("b-good.so", ["FIXTURE_ID=\"test.dir\"", "FIXTURE_DOMAIN=\"dir\""])
        try directory.plugin("a-plain.so", ["FIXTURE_NO_ENTRY"])
        try directory.write("c-readme.txt", Array("hello".utf8))
        let host = PluginHost(registry: ErrorRegistry())
        let report = host.load(PluginSearch(paths: [directory.path]))
        #expect(report.loaded.map(\.id) == ["test.dir"])
        #expect(report.rejected.map(\.code) == [.notAPlugin, .notAPlugin], "\(report.rejected)")
        #expect(report.rejected.first?.detail.hasPrefix("axiom_plugin_entry_v1 is not exported") == true)
        #expect(report.rejected.last?.detail.hasPrefix("not an ELF file") == true)
        #expect(
            report.rejected.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["a-plain.so", "c-readme.txt"])
    }

    @Test func theExecutableDirectorySkipsLibrariesThatAreNotPlugins() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        try directory.plugin("libplain.so", ["FIXTURE_NO_ENTRY"])
        try directory.write("notes.txt", Array("hello".utf8))
        try directory.plugin("libgood.so", ["FIXTURE_ID=\"test.exe\"", "FIXTURE_DOMAIN=\"exe\""])
        let host = PluginHost(registry: ErrorRegistry())
        let report = host.load(PluginSearch(executableDirectory: directory.path))
        #expect(report.loaded.map(\.id) == ["test.exe"])
        #expect(report.rejected.isEmpty)
    }

    @Test func aDirectoryNamedTwiceIsReadOnce() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        try directory.plugin("libgood.so", ["FIXTURE_ID=\"test.twice\"", "FIXTURE_DOMAIN=\"twice\""])
        let host = PluginHost(registry: ErrorRegistry())
        let report = host.load(
            PluginSearch(
                paths: [directory.path], environmentPaths: [directory.path + "/."],
                executableDirectory: directory.path))
        #expect(report.loaded.count == 1)
        #expect(report.rejected.isEmpty)
    }

    @Test func theABIHeaderHashMatchesTheHeader() throws {
        // FNV-1a 64 of the header without the line that defines the hash: edit the header, update the hash.
        let computed = try ABIRevisionTests.headerHash(FixtureDirectory.abiInclude + "/axiom_plugin.h")
        #expect(computed == DescriptorReader.hostABIHash, "set AXIOM_PLUGIN_ABI_HASH to \"\(computed)\"")
    }

    @Test func reverseDNSIdentifiers() {
        #expect(DescriptorReader.isReverseDNS("dev.axiom.plugins.nwc"))
        #expect(DescriptorReader.isReverseDNS("org.example.payment-methods"))
        #expect(!DescriptorReader.isReverseDNS("nwc"))
        #expect(!DescriptorReader.isReverseDNS("org..example"))
        #expect(!DescriptorReader.isReverseDNS("org.exa mple"))
    }
}

@Suite struct SearchAndAliasTests {
    @Test func theStandardSearchReadsAXIOM_PLUGIN_PATHAndTheExecutableDirectory() {
        setenv("AXIOM_PLUGIN_PATH", "/opt/a:/opt/b", 1)
        defer { unsetenv("AXIOM_PLUGIN_PATH") }
        let search = PluginSearch.standard(paths: ["/x"])
        #expect(search.paths == ["/x"])
        #expect(search.environmentPaths == ["/opt/a", "/opt/b"])
        #expect(search.executableDirectory == FixtureDirectory.buildDirectory)
    }

    @Test func everyNumericAliasResolvesToTheSameDescriptor() throws {
        let registry = ErrorRegistry()
        let descriptor = ErrorDescriptor(
            code: ErrorCode("calls", "CALL_REJECTED"), numericAliases: [21, 403, 603], category: .api)
        try registry.register(ErrorCatalog(source: "test.calls", domains: ["calls"], descriptors: [descriptor]))
        #expect(descriptor.numericCode == 21)
        for number in [21, 403, 603] {
            #expect(registry.descriptor(domain: "calls", numericCode: number)?.code.code == "CALL_REJECTED")
            #expect(registry.descriptor(for: ErrorCode("calls", String(number)))?.code.code == "CALL_REJECTED")
        }
        let clash = ErrorDescriptor(code: ErrorCode("calls", "OTHER"), numericAliases: [7, 403], category: .api)
        #expect(throws: RegistrationError.self) {
            try registry.register(ErrorCatalog(source: "test.more", domains: ["calls2"], descriptors: [clash]))
        }
    }
}
