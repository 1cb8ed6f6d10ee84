#if ServiceLifecycle
import AxiomCore
import AxiomCrash
import AxiomPlugins
import CoreMetrics
import Logging
import ServiceLifecycle
import Synchronization

/// The framework's start and stop, as a `Service` of a `ServiceGroup`:
///
/// 1. installs the crash reporter (when given a directory), so a crash on any thread from then on leaves a report;
/// 2. processes the reports that earlier runs left there, and hands each to `exportCrashReport` (an OTLP exporter,
///    say) before the service reports itself started; a report is marked done (moved to `processed/`) only once it
///    was handed over and logged, so a run stopped in between hands it over again at the next start, with the same
///    `ProcessedCrashReport.reportID`;
/// 3. loads the plugins (when given a search), logging each refusal; a refused plugin does not stop the service;
/// 4. waits for graceful shutdown, then runs the `flush` closures (exporters, log buffers), in order.
///
/// ```swift
/// let axiom = AxiomService(configuration: .init(crashDirectory: "/var/lib/shop/crashes", plugins: .standard()))
/// let group = ServiceGroup(services: [axiom, server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// A failure to start throws ``StartupError``, which names the step and carries the underlying error; the group
/// then shuts the other services down.
public struct AxiomService: Service {
    /// What the service starts.
    public struct Configuration: Sendable {
        /// Where crash reports are written and read; nil: no crash reporter.
        package var crashDirectory: String?
        /// What happens once a crash's report is written: by default the process dies at once, so that it is
        /// restarted without waiting for the Swift runtime's backtracer to symbolicate in the dying process
        /// (`SWIFT_BACKTRACE`); `.runPreviousHandlers` lets it run.
        package var afterCrashReport: CrashReporter.AfterReport
        /// Where plugins are searched; nil: none are loaded.
        package var plugins: PluginSearch?
        /// How their code is vetted before it is registered: the `axiom-plugin-scanner` beside the executable,
        /// else the executable itself, with the verdict cache, unless set otherwise.
        package var pluginVetting: PluginVetting
        /// The registry plugins register into.
        package var registry: ErrorRegistry
        /// Called with each report an earlier run left, once it is processed and before it is marked done: at least
        /// once per report, and again, with the same `ProcessedCrashReport.reportID`, when a run
        /// stopped in between. When it throws, the report stays pending and is handed over again at the next
        /// start (give `CrashReportExporter.export` to keep a report until the collector takes it, `exportOrLog`
        /// to log a refusal and move on).
        package var exportCrashReport: (@Sendable (ProcessedCrashReport) async throws -> Void)?
        /// Called in order on graceful shutdown.
        package var flush: [@Sendable () async -> Void]
        /// Where `axiom_crash_reports_total{outcome, signal}` is counted: one per report of an earlier run,
        /// `outcome` `processed`, `rejected` (malformed), `incomplete` (cut short: its writer died before finishing
        /// it) or `failed` (not processed, or not exported: left pending), `signal` its number when read.
        package var metrics: any MetricsFactory

        /// A configuration.
        ///
        /// - Parameters:
        ///   - crashDirectory: where crash reports are written and read; nil: no crash reporter.
        ///   - afterCrashReport: what happens once a crash's report is written: by default the process dies at
        ///     once, so that it is restarted without waiting for the Swift runtime's backtracer to symbolicate in the
        ///     dying process (`SWIFT_BACKTRACE`); `.runPreviousHandlers` lets it run.
        ///   - plugins: where plugins are searched; nil: none are loaded.
        ///   - pluginVetting: how their code is vetted before it is registered: the `axiom-plugin-scanner` beside
        ///     the executable, else the executable itself, with the verdict cache, unless set otherwise.
        ///   - registry: the registry plugins register into.
        ///   - exportCrashReport: called with each report an earlier run left, once it is processed and before it is
        ///     marked done: at least once per report, and again, with the same `ProcessedCrashReport.reportID`, when a
        ///     run stopped in between. When it throws, the report stays pending and is handed over again at the next
        ///     start (give `CrashReportExporter.export` to keep a report until the collector takes it, `exportOrLog` to
        ///     log a refusal and move on).
        ///   - flush: called in order on graceful shutdown.
        ///   - metrics: where `axiom_crash_reports_total{outcome, signal}` is counted: one per report of an earlier
        ///     run, `outcome` `processed`, `rejected` (malformed), `incomplete` (cut short: its writer died before
        ///     finishing it) or `failed` (not processed, or not exported: left pending), `signal` its number when read.
        public init(
            crashDirectory: String? = nil, afterCrashReport: CrashReporter.AfterReport = .dieAtOnce,
            plugins: PluginSearch? = nil, pluginVetting: PluginVetting = .standard, registry: ErrorRegistry = .shared,
            exportCrashReport: (@Sendable (ProcessedCrashReport) async throws -> Void)? = nil,
            flush: [@Sendable () async -> Void] = [], metrics: any MetricsFactory = MetricsSystem.factory
        ) {
            self.metrics = metrics
            self.crashDirectory = crashDirectory
            self.afterCrashReport = afterCrashReport
            self.plugins = plugins
            self.pluginVetting = pluginVetting
            self.registry = registry
            self.exportCrashReport = exportCrashReport
            self.flush = flush
        }
    }

    /// Why the service could not start: the step, and what failed in it.
    public struct StartupError: Error, Sendable, CustomStringConvertible {
        /// The step that failed.
        public typealias Step = NamedCase<AxiomService.StartupError>

        /// The step that failed.
        public let step: Step
        /// What failed.
        public let underlying: any Error

        public var description: String { "AxiomService could not start: \(step.name) failed: \(underlying)" }
    }

    /// What the service starts.
    package let configuration: Configuration
    private let logger: Logger
    private let startup = StartOnce()

    /// A service with `configuration`, logging through `logger`.
    public init(configuration: Configuration, logger: Logger = Logger(label: "axiom.service")) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let report = try await start()
        logger.info(
            "axiom started",
            metadata: [
                "crash-reports-processed": "\(report.processedReports)",
                "plugins-loaded": "\(report.loadedPlugins)", "plugins-refused": "\(report.refusedPlugins)",
            ])
        try? await gracefulShutdown()
        for flush in configuration.flush { await flush() }
        logger.info("axiom stopped")
    }

    /// What ``start()`` did.
    public struct StartReport: Sendable {
        /// Reports of earlier runs processed and exported.
        public var processedReports = 0
        /// Reports of earlier runs set aside as malformed.
        public var rejectedReports = 0
        /// Plugins loaded.
        public var loadedPlugins = 0
        /// Plugin files refused.
        public var refusedPlugins = 0
    }

    private func countCrashReport(_ outcome: String, signal: String) {
        Counter(
            label: "axiom_crash_reports_total", dimensions: [("outcome", outcome), ("signal", signal)],
            factory: configuration.metrics
        ).increment()
    }

    /// Steps 1 to 3 of ``run()``, without waiting for shutdown. They run once per service, whoever asks first:
    /// every later call, ``run()``'s included, waits for that start and returns its report (or its error). So a
    /// server that must not answer before the plugins' domains are registered awaits `start()` before it listens,
    /// in `main` or in its own service's `run()`:
    ///
    /// ```swift
    /// _ = try await axiom.start()   // plugins loaded, earlier crash reports exported
    /// let group = ServiceGroup(services: [axiom, server], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    public func start() async throws(StartupError) -> StartReport {
        let task = startup.task.withLock { task in
            if let task { return task }
            let started = Task { await self.runStartSteps() }
            task = started
            return started
        }
        return try await task.value.get()
    }

    /// Installs, processes and loads: what ``start()`` runs once.
    private func runStartSteps() async -> Result<StartReport, StartupError> {
        do throws(StartupError) {
            return .success(try await startSteps())
        } catch {
            return .failure(error)
        }
    }

    /// Exports, logs and counts one report of an earlier run, before it is marked done.
    private func deliver(_ pending: PendingCrashReport) async throws {
        let reportID: Logger.MetadataValue = "\(pending.reportID ?? "")"
        switch pending.outcome {
        case .processed(let processed):
            try await configuration.exportCrashReport?(processed)
            countCrashReport("processed", signal: processed.report.signalName)
            logger.error(
                "a crash of an earlier run was processed",
                metadata: [
                    "report": "\(processed.jsonPath)", "description": "\(processed.report.crashDescription)",
                    "reportID": reportID,
                ])
        case .rejected(let path, let reason):
            countCrashReport("rejected", signal: "unknown")
            logger.warning(
                "a crash report is malformed",
                metadata: ["report": "\(path)", "reason": "\(reason)", "reportID": reportID])
        case .incomplete(let path, let pid, _):
            countCrashReport("incomplete", signal: "unknown")
            logger.error(
                "a crash of an earlier run left its report cut short (its writer died before finishing it)",
                metadata: ["report": "\(path)", "pid": "\(pid)", "reportID": reportID])
        case .failed:
            // Counted and logged with the outcomes: it stays pending.
            break
        }
    }

    private func startSteps() async throws(StartupError) -> StartReport {
        var report = StartReport()
        if let directory = configuration.crashDirectory {
            do {
                try CrashReporter.install(directory: directory, afterReport: configuration.afterCrashReport)
            } catch {
                throw StartupError(step: .installCrashReporter, underlying: error)
            }
            let outcomes: [CrashReportProcessor.Processing]
            do {
                // Each report is exported, logged and counted before it is marked done.
                outcomes = try await CrashReportProcessor(directory: directory).processPendingReports { pending in
                    try await deliver(pending)
                }
            } catch {
                throw StartupError(step: .readCrashReports, underlying: error)
            }
            for outcome in outcomes {
                switch outcome {
                case .processed: report.processedReports += 1
                case .rejected: report.rejectedReports += 1
                case .incomplete: break
                case .failed(let path, let reason):
                    countCrashReport("failed", signal: "unknown")
                    logger.warning(
                        "a crash report could not be processed", metadata: ["report": "\(path)", "reason": "\(reason)"])
                }
            }
        }
        if let search = configuration.plugins {
            let loaded = PluginHost(registry: configuration.registry, vetting: configuration.pluginVetting).load(search)
            report.loadedPlugins = loaded.loaded.count
            report.refusedPlugins = loaded.rejected.count
            for rejection in loaded.rejected {
                logger.warning(
                    "a plugin was refused",
                    metadata: [
                        "path": "\(rejection.path)", "reason": "\(rejection.code.name)",
                        "detail": "\(rejection.detail)",
                    ])
            }
        }
        return report
    }
}

/// The one start of an ``AxiomService``, shared by its copies (a service is a value that `ServiceGroup` holds).
final class StartOnce: Sendable {
    let task = Mutex<Task<Result<AxiomService.StartReport, AxiomService.StartupError>, Never>?>(nil)
}

extension NamedCase where Owner == AxiomService.StartupError {
    /// Installing the crash reporter.
    public static var installCrashReporter: Self { Self(name: "installCrashReporter") }
    /// Reading the crash directory for reports of earlier runs.
    public static var readCrashReports: Self { Self(name: "readCrashReports") }
}
#endif
