#if Hummingbird && OpenTelemetry
import Axiom
import AxiomCrash
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
            // Started (whether the group's run or this call began it): the plugins' domains are registered.
            _ = try await service.start()
            #expect(registry.source(ofDomain: "nwc") != nil)
            #expect(flushed.withLock { $0 }.isEmpty)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(flushed.withLock { $0 } == ["metrics", "logs"])
    }

    /// A server that must not answer before the plugins are loaded awaits `start()` first; the group's run of the
    /// service then waits for that start instead of loading again (a second load into the same registry would
    /// refuse every plugin, its domains taken).
    @Test func itStartsOnceHoweverManyAsk() async throws {
        let registry = ErrorRegistry()
        let service = AxiomService(
            configuration: .init(
                plugins: PluginSearch(executableDirectory: Self.buildDirectory), registry: registry))
        async let first = service.start()
        async let second = service.start()
        let reports = try await [first, second]
        for report in reports {
            #expect(report.loadedPlugins == 5)
            #expect(report.refusedPlugins == 0)
        }
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let again = try await service.start()
            #expect(again.loadedPlugins == 5 && again.refusedPlugins == 0)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
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

    /// A report of an earlier run is marked done only once the exporter took it: one the exporter refused is handed
    /// over again at the next start, with the same id.
    @Test func aReportTheExporterRefusedIsExportedAtTheNextStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-crashes-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        for _ in 0..<2 {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: Self.buildDirectory + "/AxiomCrashProbe")
            probe.arguments = [directory.path, "null-write"]
            probe.environment = ["SWIFT_BACKTRACE": "enable=no"]
            probe.standardOutput = FileHandle.nullDevice
            probe.standardError = FileHandle.nullDevice
            try probe.run()
            probe.waitUntilExit()
            #expect(probe.terminationReason == .uncaughtSignal)
        }
        #expect(try CrashReporter.pendingReports(in: directory.path).count == 2)

        struct Refused: Error {}
        let handed = Mutex([String]())
        var configuration = AxiomService.Configuration(
            crashDirectory: directory.path, registry: ErrorRegistry(),
            exportCrashReport: { report in
                let count = handed.withLock {
                    $0.append(report.reportID)
                    return $0.count
                }
                if count == 2 { throw Refused() }
            })
        // This test process keeps the Swift runtime's backtracer should it crash.
        configuration.afterCrashReport = .runPreviousHandlers
        let first = try await AxiomService(configuration: configuration).start()
        #expect(first.processedReports == 1)
        let refused = try #require(handed.withLock { $0 }.last)
        #expect(try CrashReporter.pendingReports(in: directory.path).count == 1)

        let second = try await AxiomService(configuration: configuration).start()
        #expect(second.processedReports == 1)
        #expect(handed.withLock { $0 }.count == 3)
        #expect(handed.withLock { $0 }.last == refused)
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
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
