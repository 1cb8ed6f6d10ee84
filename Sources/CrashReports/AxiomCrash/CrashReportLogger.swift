import AxiomCore
import AxiomSymbolication
import CoreMetrics
import Logging
import Synchronization

/// Writes crash reports and the stacks of severe errors to a swift-log `Logger`, and counts crash reports
/// through swift-metrics.
///
/// It sits in front of whatever `LogHandler` the logger has (a file, the journal, a collector; in tests an
/// `InMemoryLogHandler`): every entry is one structured log event, so any handler can store or forward it.
///
/// - Crash reports: ``processPendingReports(with:)`` (at start) writes one `critical` entry per processed
///   report: signal, description, fault address, thread, the crash site (the innermost frame of the
///   executable's own code), the top frames, the paths of the JSON and text reports, and the report's stable
///   id (`reportID`). Each is counted in `axiom_crash_reports_total{outcome, signal}`. Rejected reports are
///   logged at `error` and counted with `outcome="rejected"`; crashes whose report was cut short (a full disk)
///   at `critical`, counted with `outcome="incomplete"`.
/// - Error events: as an `ErrorObserver` next to `LoggingObserver`, it writes one more entry for each event
///   a `Handle` handler took (`.handled`) at or above `minimumSeverity` that carries a stack: the event's
///   metadata (code, category, layer, disposition…) with `stack` holding the symbolicated frames, from the
///   application's frame on (see ``UnwindStackCapturer``). The stack was captured as addresses when the error
///   entered the pipeline (see ``UnwindStackCapturer``); it is symbolicated here, only when the entry is actually
///   written, with one cached `Symbolicator`.
///
/// ```swift
/// try CrashReporter.install(directory: crashDirectory)
/// let crashLogger = CrashReportLogger(logger: Logger(label: "axiom.crash"))
/// try crashLogger.processPendingReports(with: CrashReportProcessor(directory: crashDirectory))
/// let configuration = PipelineConfiguration(
///     observers: [LoggingObserver(), MetricsObserver(), crashLogger], stackCapturer: UnwindStackCapturer())
/// ```
public final class CrashReportLogger: ErrorObserver {
    /// The counter's label.
    package static let counterLabel = "axiom_crash_reports_total"

    /// Where entries go.
    package let logger: Logger
    /// Symbolicates error stacks; its caches live as long as this logger.
    package let symbolicator: Symbolicator
    /// Events below this severity are not logged here (``LoggingObserver`` still logs them).
    package let minimumSeverity: ErrorSeverity
    /// How many frames of a crash report its entry lists (the whole report is in the JSON file).
    package let crashFrameLimit: Int

    private let factory: any MetricsFactory
    /// One counter per (outcome, signal), made on first use.
    private let counters = Mutex<[String: Counter]>([:])

    /// Creates a logger.
    ///
    /// - Parameters:
    ///   - logger: where entries go.
    ///   - symbolicator: symbolicates error stacks (share the processor's to share its caches).
    ///   - minimumSeverity: the least severity of an error event whose stack is logged.
    ///   - crashFrameLimit: how many frames of a crash report its entry lists.
    ///   - metricsFactory: counts crash reports (the bootstrapped factory by default).
    public init(
        logger: Logger = .axiom("axiom.crash"), symbolicator: Symbolicator = Symbolicator(),
        minimumSeverity: ErrorSeverity = .error, crashFrameLimit: Int = 16,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.logger = logger.redacting()
        self.symbolicator = symbolicator
        self.minimumSeverity = minimumSeverity
        self.crashFrameLimit = max(1, crashFrameLimit)
        self.factory = metricsFactory
    }

    // MARK: Crash reports

    /// Processes every pending report of `processor`'s directory and logs each outcome.
    ///
    /// At least once, and each entry marked: a report is marked done (moved to `processed/`, `rejected/` or
    /// `incomplete/`) only after its entry was written, and every entry carries the report's stable id in
    /// `reportID`. A run stopped in between (killed, say) leaves the report pending; the next run logs it again,
    /// with the same `reportID`, so a log backend can drop the repeat. A report whose move fails after its entry
    /// was written is logged again by the next run too (and a warning says it was left pending).
    ///
    /// - Returns: the outcomes, as ``CrashReportProcessor/processPendingReports()`` gives them.
    @discardableResult
    public func processPendingReports(
        with processor: CrashReportProcessor
    ) throws(CrashReporterError) -> [CrashReportProcessor.Processing] {
        let outcomes = try processor.processPendingReports { pending in
            // One that could not be prepared is logged with the others left pending, below.
            if case .failed = pending.outcome { return }
            log(pending.outcome, reportID: pending.reportID)
        }
        for case .failed(let path, let reason) in outcomes { logPending(path: path, reason: reason) }
        return outcomes
    }

    /// Logs what became of one raw report: a processed one at `critical`, a rejected one at `error`, an
    /// incomplete one (a crash whose report was cut short) at `critical` (all three counted, with `outcome`
    /// `processed`, `rejected` or `incomplete`), one left pending at `warning` (not counted: it will be
    /// processed, and counted, later). Each entry but the last carries the report's stable id in `reportID`.
    package func log(_ outcome: CrashReportProcessor.Processing) {
        switch outcome {
        case .processed(let processed): log(outcome, reportID: processed.reportID)
        case .rejected(let path, _):
            let bytes = (try? RawCrashReport.readFile(path)) ?? []
            log(
                outcome, reportID: CrashReportID.make(name: String(path.split(separator: "/").last ?? ""), bytes: bytes)
            )
        case .incomplete(_, _, let reportID): log(outcome, reportID: reportID)
        case .failed: log(outcome, reportID: nil)
        }
    }

    /// Logs `outcome`, whose report has the id `reportID`.
    func log(_ outcome: CrashReportProcessor.Processing, reportID: String?) {
        switch outcome {
        case .processed(let processed):
            log(processed)
        case .rejected(let path, let reason):
            count(outcome: "rejected", signal: "unknown")
            var metadata: Logger.Metadata = [
                "rawReport": "\(path)", "reason": "\(reason)", "rejectedReason": "\(path).reason",
            ]
            if let reportID { metadata["reportID"] = "\(reportID)" }
            logger.error("crash report rejected: \(reason)", metadata: metadata)
        case .incomplete(let path, let pid, let reportID):
            count(outcome: "incomplete", signal: "unknown")
            let time = CrashReporter.temporaryReportWriter(name: String(path.split(separator: "/").last ?? ""))
            var metadata: Logger.Metadata = ["rawReport": "\(path)", "pid": "\(pid)", "reportID": "\(reportID)"]
            if let time {
                metadata["timestamp"] =
                    "\(SymbolicatedCrashReport.iso8601(.init(seconds: time.seconds, nanoseconds: 0)))"
            }
            logger.critical(
                "crash report incomplete: process \(pid) crashed but its report was cut short (kept at \(path))",
                metadata: metadata)
        case .failed(let path, let reason):
            logPending(path: path, reason: reason)
        }
    }

    private func logPending(path: String, reason: String) {
        logger.warning(
            "crash report left pending: \(reason)", metadata: ["rawReport": "\(path)", "reason": "\(reason)"])
    }

    /// Logs one processed crash report as one `critical` entry, and counts it.
    package func log(_ processed: ProcessedCrashReport) {
        let report = processed.report
        let raw = report.raw
        count(outcome: "processed", signal: raw.signalName)
        let top = report.frames.prefix(crashFrameLimit)
        var metadata: Logger.Metadata = [
            "signal": "\(raw.signalName)",
            "signalNumber": "\(raw.signal)",
            "signalCode": "\(raw.code)",
            "description": "\(report.crashDescription)",
            "faultAddress": "\(hex(raw.faultAddress))",
            "pid": "\(raw.pid)",
            "tid": "\(raw.tid)",
            "thread": "\(raw.threadName)",
            "timestamp": "\(report.timestamp)",
            "frames": .array(top.map { .string($0.summary) }),
            "report": "\(processed.jsonPath)",
            "reportText": "\(processed.textPath)",
            "rawReport": "\(processed.rawPath)",
            "reportID": "\(processed.reportID)",
        ]
        if let message = raw.fatalMessage { metadata["fatalMessage"] = "\(message)" }
        if !raw.recentErrors.isEmpty {
            metadata["recentErrors"] = .array(
                raw.recentErrors.suffix(8).map { .string("\($0.code) \($0.disposition) in \($0.operation)") })
        }
        if report.frames.count > top.count { metadata["framesOmitted"] = "\(report.frames.count - top.count)" }
        if !report.changedModules.isEmpty {
            metadata["changedModules"] = .array(report.changedModules.sorted().map { .string($0) })
        }
        let site = report.crashSite
        if let site { metadata["crashSite"] = "\(site.summary)" }
        let place = site.map { " in " + $0.summary } ?? ""
        let message = raw.fatalMessage.map { ": " + ($0.split(separator: "\n").first.map(String.init) ?? $0) } ?? ""
        logger.critical(
            "crash: \(report.crashDescription) (\(raw.signalName))\(place)\(message)", metadata: metadata)
    }

    private func count(outcome: String, signal: String) {
        let key = outcome + "/" + signal
        let counter = counters.withTrackedLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: Self.counterLabel, dimensions: [("outcome", outcome), ("signal", signal)], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    // MARK: Error events

    /// Logs the symbolicated stack of an event a `Handle` handler took at or above `minimumSeverity`; does
    /// nothing for other events, for events without a stack, or when the logger's level would drop the entry
    /// (then nothing is symbolicated either).
    public func observe(_ event: ErrorEvent, disposition: Disposition) {
        guard disposition == .handle, event.descriptor.severity >= minimumSeverity, let stack = event.stack else {
            return
        }
        let level = event.descriptor.severity.loggerLevel
        guard logger.logLevel <= level else { return }
        var metadata = LoggingObserver.metadata(event, disposition)
        // Symbolicated here whatever the capturer's own describer does; frames without debug info stay
        // module-relative, with their modules' build-ids.
        let logged = ModuleStackDescriber(symbolicator: symbolicator, symbolicates: true).describe(stack)
        metadata["stack"] = .array(logged.frames.map { .string($0) })
        metadata["stackModules"] = logged.modules.isEmpty ? nil : .array(logged.modules.map { .string($0) })
        let place = logged.frames.first.map { " at " + $0 } ?? ""
        logger.log(level: level, "\(event.code) handle in \(event.operation)\(place)", metadata: metadata)
    }
}
