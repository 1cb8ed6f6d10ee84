import Axiom
import Foundation
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// Without a separate scanner, the host's own executable is the scanner: here the test binary, started again with
/// the marker, whose constructor runs the scan before its `main`. The verdicts are the separate scanner's.
@Suite struct SelfScannerTests {
    /// What the host's own executable as the scanner loads, through the public API only.
    static let ownExecutable = PluginVetting(usesSeparateScanner: false, timeout: .seconds(120), cacheDirectory: nil)

    @Test func aHostWithoutASeparateScannerVetsThroughItsOwnExecutable() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        try directory.plugin("good.so", ["FIXTURE_ID=\"test.good\"", "FIXTURE_DOMAIN=\"good\""])
        try directory.plugin("segv.so", ["FIXTURE_ID=\"test.segv\"", "FIXTURE_DOMAIN=\"segv\"", "FIXTURE_CRASH"])
        let registry = ErrorRegistry()
        let host = PluginHost(registry: registry, vetting: Self.ownExecutable)
        let report = host.load(PluginSearch(paths: [directory.path]))
        #expect(report.loaded.map(\.id) == ["test.good"])
        #expect(report.scannerLaunches == 2)
        #expect(host.scannerLaunchCount == 2)
        let rejection = try #require(report.rejected.first)
        #expect(report.rejected.count == 1)
        #expect(rejection.code == .crashedInScanner)
        #expect(rejection.detail.contains("SIGSEGV in axiom_plugin_entry_v1"), "\(rejection.detail)")
        #expect(rejection.detail.contains("the host's scanner process"), "\(rejection.detail)")
        #expect(registry.descriptor(for: ErrorCode("good", "E001"))?.source == "test.good")
        #expect(registry.message(forKey: "error.good.E001.title", locale: "en") == "Fixture 1")
    }

    /// The shipped plugins (four in Swift, their texts in two languages) read by the test binary as the scanner
    /// give the very catalogs the separate scanner gives: the Swift runtime is usable in the constructor.
    @Test(.disabled(if: Sanitizers.thread, swiftPluginsUnderThreadSanitizer))
    func theShippedPluginsCatalogsAreTheSeparateScannersOnes() throws {
        func catalogs(separate: Bool) -> [ErrorCatalog] {
            let registry = ErrorRegistry()
            let vetting = PluginVetting(usesSeparateScanner: separate, timeout: .seconds(120), cacheDirectory: nil)
            let report = PluginHost(registry: registry, vetting: vetting).load(
                PluginSearch(executableDirectory: FixtureDirectory.buildDirectory))
            #expect(report.rejected.isEmpty, "\(report.rejected)")
            #expect(report.scannerLaunches == 5)
            return registry.catalogs.filter { $0.source.hasPrefix("dev.axiom.plugins.") }.sorted {
                $0.source < $1.source
            }
        }
        let own = catalogs(separate: false)
        let separate = catalogs(separate: true)
        #expect(own.count == 5)
        #expect(own.map(\.source) == separate.map(\.source))
        #expect(own.map { $0.descriptors.map(\.description) } == separate.map { $0.descriptors.map(\.description) })
        #expect(own.map(\.messages) == separate.map(\.messages))
        #expect(own.contains { $0.messages["tr"]?.isEmpty == false })
    }

    /// A descriptor the host opened without close-on-exec does not reach the scanner, either scanner: only the
    /// plugin file and the verdict pipe do. The plugin's entry returns NULL when it sees the descriptor open.
    @Test(arguments: ScannerTests.bothScanners)
    func theScannerInheritsNoOtherDescriptorOfTheHost(separate: Bool) throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        let inherited: Int32 = 917 + (separate ? 0 : 1)
        let path = try directory.plugin(
            "fd.so", ["FIXTURE_ID=\"test.fd\"", "FIXTURE_DOMAIN=\"fd\"", "FIXTURE_CLOSED_FD=\(inherited)"])
        let opened = open("/dev/null", O_RDONLY)
        #expect(opened >= 0)
        #expect(dup2(opened, inherited) == inherited)
        close(opened)
        defer { close(inherited) }
        #expect(fcntl(inherited, F_GETFD) & FD_CLOEXEC == 0)
        let vetting = PluginVetting(usesSeparateScanner: separate, timeout: .seconds(120), cacheDirectory: nil)
        let loaded = PluginHost(registry: ErrorRegistry(), vetting: vetting).load(file: path)
        #expect((try? loaded.get())?.id == "test.fd", "\(loaded)")
    }

    /// Started with the marker but without the scanner's descriptors, the test binary exits with status 2 at once:
    /// neither a scan nor its own `main` (the test runner) runs. Without the marker, the constructor does nothing:
    /// every test binary and application starts as usual (as this one did).
    @Test func theMarkerWithoutTheScannersDescriptorsEndsTheProcessBeforeMain() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FixtureDirectory.testBinary)
        process.arguments = [PluginScanner.marker, String(getpid())]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 2)
        #expect(printed.isEmpty, "\(String(decoding: printed, as: UTF8.self))")
    }
}
