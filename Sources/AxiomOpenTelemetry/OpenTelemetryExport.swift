#if OpenTelemetry
import AsyncHTTPClient
import AxiomCore
import AxiomCrash
import CoreMetrics
import Logging
import OTel
import ServiceLifecycle
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
/// - **Logs**: every `Logger` of the process, the framework's own first, through ``RedactingLogHandler`` (so
///   nothing reaches the collector unredacted), as OTLP log records carrying the active span's trace and span ids.
/// - **Metrics**: every swift-metrics instrument: the framework's errors by domain, code, disposition and layer
///   (`MetricsObserver`), recoveries (`RecoveryMetricsObserver`), breaker state and transitions, resilience events
///   and timers, and crash reports (`axiom_crash_reports_total`, counted by `AxiomService`).
/// - **Traces**: the process's tracer is swift-otel's, so `TracingErrorObserver` events, `TracingInstrument`
///   statuses and Hummingbird's request spans are exported.
/// - **Crash reports**: ``crashReports`` sends each processed report as one `FATAL` log record
///   (``CrashReportLogRecord``).
///
/// ``init(_:)`` makes the same exporters without touching the process's logging, metrics and instrumentation
/// systems, for an application that bootstraps them itself (with a multiplex handler, say) or a test.
public struct OpenTelemetryExport: Service {
    /// Where and what to export.
    public struct Configuration: Sendable {
        /// The collector's OTLP/HTTP base URL: logs go to `<collector>/v1/logs`, metrics to `/v1/metrics`,
        /// traces to `/v1/traces`.
        public var collector: String
        /// `service.name` on every signal.
        public var serviceName: String
        /// Redacts every log line before it is exported.
        public var redactor: Redactor
        /// Everything else swift-otel takes (sampler, batching, metric export interval, headers, resource
        /// attributes, log level). Its endpoints and service name are replaced by ``collector`` and
        /// ``serviceName``; its `OTEL_*` environment variables still apply, as swift-otel documents.
        public var otel: OTel.Configuration

        /// A configuration for `collector` (for example `http://127.0.0.1:4318`) and `serviceName`.
        public init(
            collector: String = "http://localhost:4318", serviceName: String, redactor: Redactor = Redactor(),
            otel: OTel.Configuration = .default
        ) {
            self.collector = collector
            self.serviceName = serviceName
            self.redactor = redactor
            self.otel = otel
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
    public let configuration: Configuration
    /// Makes the exporting log handler for a label, redacting.
    public let makeLogHandler: @Sendable (String) -> any LogHandler
    /// The exporting metrics factory.
    public let metricsFactory: any MetricsFactory
    /// The exporting tracer.
    public let tracer: any Tracer
    /// Sends processed crash reports.
    public let crashReports: CrashReportExporter
    /// swift-otel's log handlers, before redaction.
    private let makeExportingLogHandler: @Sendable (String) -> any LogHandler
    private let services: [any Service]

    /// The exporters, without bootstrapping anything. Throws swift-otel's error for a configuration it refuses.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        let otel = configuration.resolved
        var services: [any Service] = []
        let redactor = configuration.redactor
        if otel.logs.enabled {
            let logs = try OTel.makeLoggingBackend(configuration: otel)
            let factory = logs.factory
            makeExportingLogHandler = factory
            makeLogHandler = { label in RedactingLogHandler(wrapping: factory(label), redactor: redactor) }
            services.append(logs.service)
        } else {
            makeExportingLogHandler = { _ in SwiftLogNoOpLogHandler() }
            makeLogHandler = makeExportingLogHandler
        }
        if otel.metrics.enabled {
            let metrics = try OTel.makeMetricsBackend(configuration: otel)
            metricsFactory = metrics.factory
            services.append(metrics.service)
        } else {
            metricsFactory = NOOPMetricsHandler.instance
        }
        if otel.traces.enabled {
            let traces = try OTel.makeTracingBackend(configuration: otel)
            tracer = traces.factory
            services.append(traces.service)
        } else {
            tracer = NoOpTracer()
        }
        crashReports = CrashReportExporter(
            endpoint: otel.logs.otlpExporter.endpoint, serviceName: configuration.serviceName,
            resource: otel.resourceAttributes, headers: otel.logs.otlpExporter.headers,
            timeout: otel.logs.otlpExporter.timeout)
        // Shut down in reverse: first the striped error counts go to the metrics backend, then traces, then metrics
        // (whose last export then has those counts), then logs, so the others can still log while they flush.
        if otel.metrics.enabled { services.append(StripedCountsFlush()) }
        self.services = services
    }

    /// The exporters, bootstrapped as the process's logging (through ``RedactingLogHandler/bootstrap(redactor:metadataProvider:_:)``,
    /// so do not also call `LoggingSystem.bootstrap`), metrics and instrumentation systems. Call it once, early in
    /// `main`: swift-metrics and swift-distributed-tracing can be bootstrapped once per process.
    public static func bootstrap(_ configuration: Configuration) throws -> OpenTelemetryExport {
        let export = try OpenTelemetryExport(configuration)
        // Every logger of the process, the framework's and swift-log's, gets the exporting handler behind the
        // redactor (RedactingLogHandler.bootstrap bootstraps swift-log once, and can be called again).
        RedactingLogHandler.bootstrap(redactor: configuration.redactor, export.makeExportingLogHandler)
        MetricsSystem.bootstrap(export.metricsFactory)
        InstrumentationSystem.bootstrap(export.tracer)
        return export
    }

    /// Runs the exporters until graceful shutdown, then flushes what they buffer (swift-otel's batch processors
    /// and periodic metric reader export one last time).
    public func run() async throws {
        guard !services.isEmpty else {
            try? await gracefulShutdown()
            return
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                logger: Logger(label: "axiom.opentelemetry", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await group.run()
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
#endif
