#if OpenTelemetry
import AsyncHTTPClient
import AxiomCore
import AxiomCrash
import CoreMetrics
import Logging
import OTel
import ServiceLifecycle
import Synchronization
import Tracing

/// The framework's logs, metrics and traces, and its crash reports, exported to an OpenTelemetry collector over
/// OTLP/HTTP (protobuf), through swift-otel.
///
/// One call sets it all up for the process, and the returned service runs the exporters in the application's
/// `ServiceGroup`, flushing what is buffered on graceful shutdown:
///
/// ```swift
/// let telemetry = try OpenTelemetryExport.bootstrap(.init(collector: "http://otel-collector:4318", serviceName: "shop"))
/// let axiom = AxiomService(configuration: .init(
///     crashDirectory: "/var/lib/shop/crashes",
///     exportCrashReport: telemetry.crashReports.exportOrLog))
/// let group = ServiceGroup(services: [telemetry, axiom, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// ```
///
/// What goes where:
///
/// - **Logs**: every `Logger` of the process, the framework's own first, through `RedactingLogHandler` (so
///   nothing reaches the collector unredacted), as OTLP log records carrying the active span's trace and span ids.
/// - **Metrics**: every swift-metrics instrument: the framework's errors by domain, code, disposition and layer
///   (`MetricsObserver`), recoveries (`RecoveryMetricsObserver`), breaker state and transitions, resilience events
///   and timers, and crash reports (`axiom_crash_reports_total`, counted by `AxiomService`).
/// - **Traces**: the process's tracer is swift-otel's, so `TracingErrorObserver` events, `TracingInstrument`
///   statuses and Hummingbird's request spans are exported.
/// - **Crash reports**: ``crashReports`` sends each processed report as one `FATAL` log record
///   (`CrashReportLogRecord`).
///
/// ``init(_:logger:)`` makes the same exporters without touching the process's logging, metrics and
/// instrumentation systems, for an application that bootstraps them itself (with a multiplex handler, say) or a test.
///
/// On graceful shutdown the three exporters make their last export at the same time, under one deadline,
/// `Configuration/shutdownTimeout`: what is not sent by then is dropped, and the signals dropped are logged as one
/// warning (`dropped_count`, `dropped_signals`). A collector that is down therefore holds shutdown up for that
/// deadline, not for each exporter's export timeout in turn.
public struct OpenTelemetryExport: Service {
    /// Where and what to export.
    public struct Configuration: Sendable {
        /// The collector's OTLP/HTTP base URL: logs go to `<collector>/v1/logs`, metrics to `/v1/metrics`,
        /// traces to `/v1/traces`.
        package var collector: String
        /// `service.name` on every signal.
        package var serviceName: String
        /// Redacts every log line before it is exported.
        package var redactor: Redactor
        /// Everything else swift-otel takes (sampler, batching, metric export interval, headers, resource
        /// attributes, log level). Its endpoints and service name are replaced by `collector` and
        /// `serviceName`; its `OTEL_*` environment variables still apply, as swift-otel documents.
        package var otel: OTel.Configuration
        /// How long graceful shutdown may take, from the moment the export is told to shut down: the logs, metrics
        /// and traces exporters make their last export together, and whichever has not finished by then is
        /// cancelled, its unsent data dropped and named in the export's shutdown warning. 5 s by
        /// default, well inside Kubernetes' 30 s grace period, whatever the exporters' own export timeouts are.
        package var shutdownTimeout: Duration

        /// A configuration for `collector` (for example `http://127.0.0.1:4318`) and `serviceName`.
        ///
        /// - Parameters:
        ///   - collector: the collector's OTLP/HTTP base URL: logs go to `<collector>/v1/logs`, metrics to
        ///     `/v1/metrics`, traces to `/v1/traces`.
        ///   - serviceName: `service.name` on every signal.
        ///   - redactor: redacts every log line before it is exported.
        ///   - otel: everything else swift-otel takes (sampler, batching, metric export interval, headers, resource
        ///     attributes, log level). Its endpoints and service name are replaced by `collector` and `serviceName`;
        ///     its `OTEL_*` environment variables still apply, as swift-otel documents.
        ///   - shutdownTimeout: how long graceful shutdown may take, from the moment the export is told to shut down:
        ///     the logs, metrics and traces exporters make their last export together, and whichever has not finished by
        ///     then is cancelled, its unsent data dropped and named in the export's shutdown warning. 5 s
        ///     by default, well inside Kubernetes' 30 s grace period, whatever the exporters' own export timeouts are.
        public init(
            collector: String = "http://localhost:4318", serviceName: String, redactor: Redactor = Redactor(),
            otel: OTel.Configuration = .default, shutdownTimeout: Duration = .seconds(5)
        ) {
            self.collector = collector
            self.serviceName = serviceName
            self.redactor = redactor
            self.otel = otel
            self.shutdownTimeout = shutdownTimeout
        }

        /// swift-otel's configuration with this one's collector and service name.
        var resolved: OTel.Configuration {
            var otel = self.otel
            let base = collector.hasSuffix("/") ? String(collector.dropLast()) : collector
            otel.serviceName = serviceName
            otel.logs.otlpExporter.endpoint = base + "/v1/logs"
            otel.metrics.otlpExporter.endpoint = base + "/v1/metrics"
            otel.traces.otlpExporter.endpoint = base + "/v1/traces"
            return otel
        }
    }

    /// What was configured.
    package let configuration: Configuration
    /// Makes the exporting log handler for a label, redacting.
    package let makeLogHandler: @Sendable (String) -> any LogHandler
    /// The exporting metrics factory.
    package let metricsFactory: any MetricsFactory
    /// The exporting tracer.
    package let tracer: any Tracer
    /// Sends processed crash reports.
    public let crashReports: CrashReportExporter
    /// swift-otel's log handlers, before redaction.
    private let makeExportingLogHandler: @Sendable (String) -> any LogHandler
    private let exporters: [(signal: Signal, service: any Service)]
    private let drops: ShutdownDrops
    private let logger: Logger

    /// One of the three kinds of telemetry the export sends.
    ///
    /// A struct, so that a 1.x release may add a signal without breaking a `switch`.
    package typealias Signal = NamedCase<OpenTelemetryExport>

    /// The signals whose last export graceful shutdown cut off at `Configuration/shutdownTimeout` (or that were
    /// cancelled while exporting), in `logs`, `metrics`, `traces` order; empty until then, and after a shutdown
    /// that sent everything. Its count is the number of exporters whose buffered data was dropped.
    package var droppedAtShutdown: [Signal] { drops.signals }

    /// The exporters, without bootstrapping anything. Throws swift-otel's error for a configuration it refuses.
    ///
    /// `logger` gets one warning when shutdown drops data, naming the signals dropped. By default it writes to
    /// standard error: a logger that exports through this export's own logs would lose the warning with them.
    public init(_ configuration: Configuration, logger: Logger? = nil) throws {
        self.configuration = configuration
        self.logger =
            logger ?? Logger(label: "axiom.opentelemetry", factory: { StreamLogHandler.standardError(label: $0) })
        drops = ShutdownDrops()
        let otel = configuration.resolved
        var exporters: [(signal: Signal, service: any Service)] = []
        let redactor = configuration.redactor
        if otel.logs.enabled {
            let logs = try OTel.makeLoggingBackend(configuration: otel)
            let factory = logs.factory
            makeExportingLogHandler = factory
            makeLogHandler = { label in RedactingLogHandler(wrapping: factory(label), redactor: redactor) }
            exporters.append((.logs, logs.service))
        } else {
            makeExportingLogHandler = { _ in SwiftLogNoOpLogHandler() }
            makeLogHandler = makeExportingLogHandler
        }
        if otel.metrics.enabled {
            let metrics = try OTel.makeMetricsBackend(configuration: otel)
            metricsFactory = metrics.factory
            exporters.append((.metrics, metrics.service))
        } else {
            metricsFactory = NOOPMetricsHandler.instance
        }
        if otel.traces.enabled {
            let traces = try OTel.makeTracingBackend(configuration: otel)
            tracer = traces.factory
            exporters.append((.traces, traces.service))
        } else {
            tracer = NoOpTracer()
        }
        crashReports = CrashReportExporter(
            endpoint: otel.logs.otlpExporter.endpoint, serviceName: configuration.serviceName,
            resource: otel.resourceAttributes, headers: otel.logs.otlpExporter.headers,
            timeout: otel.logs.otlpExporter.timeout)
        self.exporters = exporters
    }

    /// The exporters, bootstrapped as the process's logging (through
    /// `RedactingLogHandler.bootstrap(redactor:metadataProvider:_:)`, so do not also call `LoggingSystem.bootstrap`),
    /// metrics and instrumentation systems. Call it once, early in `main`: swift-metrics and swift-distributed-tracing
    /// can be bootstrapped once per process.
    ///
    /// `logger` is as for ``init(_:logger:)``.
    public static func bootstrap(_ configuration: Configuration, logger: Logger? = nil) throws -> OpenTelemetryExport {
        let export = try OpenTelemetryExport(configuration, logger: logger)
        // Every logger of the process, the framework's and swift-log's, gets the exporting handler behind the
        // redactor (RedactingLogHandler.bootstrap bootstraps swift-log once, and can be called again).
        RedactingLogHandler.bootstrap(redactor: configuration.redactor, export.makeExportingLogHandler)
        MetricsSystem.bootstrap(export.metricsFactory)
        InstrumentationSystem.bootstrap(export.tracer)
        return export
    }

    /// Runs the exporters until graceful shutdown, then flushes what they buffer (swift-otel's batch processors
    /// and periodic metric reader export one last time), all three at once, for at most
    /// `Configuration/shutdownTimeout`; what is not sent by then is dropped and logged as one warning.
    public func run() async throws {
        guard !exporters.isEmpty else {
            try? await gracefulShutdown()
            return
        }
        // A ServiceGroup shuts its services down in reverse, one after another: first the striped error counts go
        // to the metrics backend, then the exporters, together, so the metrics reader's last export has those
        // counts. The group's graceful-shutdown limit is the deadline: past it, it cancels the exporters.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: ConcurrentExporters(exporters: exporters, drops: drops))
        ]
        if exporters.contains(where: { $0.signal == .metrics }) {
            services.append(.init(service: StripedCountsFlush()))
        }
        var group = ServiceGroupConfiguration(
            services: services, logger: Logger(label: "axiom.opentelemetry", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        group.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        defer {
            let dropped = drops.signals
            if !dropped.isEmpty {
                logger.warning(
                    "OpenTelemetry export: shutdown dropped what was not sent within its deadline",
                    metadata: [
                        "dropped_signals": "\(dropped.map(\.name).joined(separator: ","))",
                        "dropped_count": "\(dropped.count)",
                        "shutdown_timeout": "\(configuration.shutdownTimeout)",
                    ])
            }
        }
        try await ServiceGroup(configuration: group).run()
    }
}

/// Runs the exporters side by side. They are child tasks of one service, so they all see graceful shutdown at
/// once (ServiceLifecycle's graceful shutdown is a task-local that child tasks inherit) and make their last
/// exports concurrently; the enclosing group's cancellation at the deadline reaches each of them. An exporter that
/// ends cancelled was cut off, and its signal is counted as dropped.
struct ConcurrentExporters: Service {
    let exporters: [(signal: OpenTelemetryExport.Signal, service: any Service)]
    let drops: ShutdownDrops

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (signal, service) in exporters {
                tasks.addTask {
                    do {
                        try await service.run()
                    } catch {
                        // Cut off at the deadline: counted below; anything else is the exporter's failure.
                        guard Task.isCancelled else { throw error }
                    }
                    if Task.isCancelled { drops.record(signal) }
                }
            }
            try await tasks.waitForAll()
        }
    }
}

/// The signals an export's shutdown dropped: written by the exporters' tasks, read by the application.
final class ShutdownDrops: Sendable {
    private let dropped = Mutex<Set<OpenTelemetryExport.Signal>>([])

    func record(_ signal: OpenTelemetryExport.Signal) { dropped.withTrackedLock { _ = $0.insert(signal) } }

    var signals: [OpenTelemetryExport.Signal] {
        let dropped = dropped.withTrackedLock { $0 }
        return OpenTelemetryExport.Signal.all.filter(dropped.contains)
    }
}

/// Adds the counts that `MetricsObserver`s hold per thread to the metrics backend when graceful shutdown begins:
/// the first service of the export to be shut down, so the metrics reader's last export has them.
struct StripedCountsFlush: Service {
    func run() async throws {
        try? await gracefulShutdown()
        MetricsObserver.flushAll()
    }
}

extension NamedCase where Owner == OpenTelemetryExport {
    /// Log records.
    package static var logs: Self { Self(name: "logs") }
    /// Metrics.
    package static var metrics: Self { Self(name: "metrics") }
    /// Spans.
    package static var traces: Self { Self(name: "traces") }
    /// The three, in the order the export shuts them down.
    package static var all: [Self] { [.logs, .metrics, .traces] }
}
#endif
