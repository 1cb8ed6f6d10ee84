#if Hummingbird && OpenTelemetry
import Axiom
import AxiomPlugins
import AxiomService
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// `AxiomService` in a `ServiceGroup`: it starts what it is given, says what failed when it cannot, and flushes
/// on graceful shutdown.
@Suite("AxiomService", .timeLimit(.minutes(1)))
struct ServiceTests {
    static let buildDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().path

    @Test func itLoadsThePluginsAndFlushesOnGracefulShutdown() async throws {
        let registry = ErrorRegistry()
        let flushed = Mutex([String]())
        let service = AxiomService(
            configuration: .init(
                plugins: PluginSearch(executableDirectory: Self.buildDirectory), registry: registry,
                flush: [
                    { flushed.withLock { $0.append("metrics") } }, { flushed.withLock { $0.append("logs") } },
                ]))
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // Started: the plugins' domains are registered.
            for _ in 0..<500 where registry.source(ofDomain: "nwc") == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(registry.source(ofDomain: "nwc") != nil)
            #expect(flushed.withLock { $0 }.isEmpty)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(flushed.withLock { $0 } == ["metrics", "logs"])
    }

    @Test func aFailureToStartNamesTheStep() async throws {
        let service = AxiomService(configuration: .init(crashDirectory: "/proc/self/no-such/crashes"))
        do {
            _ = try await service.start()
            Issue.record("started with a crash directory that cannot be created")
        } catch {
            #expect(error.step == .installCrashReporter)
            #expect(error.description.hasPrefix("AxiomService could not start: installCrashReporter failed: "))
            #expect(error.description.contains("cannot create crash report directory /proc/self/no-such"))
        }
    }

    @Test func theStartReportCountsWhatWasLoadedAndRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-service-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o700)
        _ = FileManager.default.createFile(atPath: directory.path + "/libbroken.so", contents: Data("not ELF".utf8))
        chmod(directory.path + "/libbroken.so", 0o644)
        let report = try await AxiomService(
            configuration: .init(
                plugins: PluginSearch(paths: [directory.path], executableDirectory: Self.buildDirectory),
                registry: ErrorRegistry())
        ).start()
        #expect(report.loadedPlugins == 5)
        #expect(report.refusedPlugins == 1)
    }
}
#endif
