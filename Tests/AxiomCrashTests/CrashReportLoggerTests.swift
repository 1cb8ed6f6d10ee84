import Axiom
import AxiomCrash
import InMemoryLogging
import Logging
import MetricsTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An in-memory handler and a logger writing to it, at every level.
func memoryLogger(level: Logger.Level = .trace) -> (Logger, InMemoryLogHandler) {
    var handler = InMemoryLogHandler()
    handler.logLevel = level
    let captured = handler
    return (Logger(label: "axiom.crash") { _ in captured }, handler)
}

/// The strings of an array metadata value.
func strings(_ value: Logger.Metadata.Value?) -> [String] {
    guard case .array(let values) = value else { return [] }
    return values.map { "\($0)" }
}

@Suite("Crash-report logger")
struct CrashReportLoggerTests {
    @Test func logsTheSymbolicatedStackOfASevereHandledErrorWithItsMetadata() throws {
        let (logger, handler) = memoryLogger()
        let crashLogger = CrashReportLogger(logger: logger, metricsFactory: TestMetrics())
        let registry = try LedgerError.registry()
        let application = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: registry, observers: [crashLogger], stackCapturer: UnwindStackCapturer())
        ) {
            Handle()
        }
        let client = ErrorPipeline(
            layer: .client, escalatesTo: .application,
            configuration: PipelineConfiguration(
                registry: registry, observers: [crashLogger], stackCapturer: UnwindStackCapturer())
        ) {}
        for error in [LedgerError.corrupted, .late] {
            do { try writeLedger(error) } catch { _ = try application.decide(error, operation: "append") }
        }
        // Escalated: carries a stack, but the layer that handles it logs it, not this one.
        #expect(throws: EscalatedError.self) {
            do { try writeLedger(.corrupted) } catch { _ = try client.decide(error, operation: "sync") }
        }

        let entries = handler.entries
        #expect(entries.count == 1, "\(entries)")
        let entry = try #require(entries.first)
        #expect(entry.level == .error)
        #expect(entry.metadata["code"] == "ledger/CORRUPTED")
        #expect(entry.metadata["category"] == "storage")
        #expect(entry.metadata["layer"] == "application")
        #expect(entry.metadata["disposition"] == "handle")
        #expect(entry.metadata["operation"] == "append")
        let stack = strings(entry.metadata["stack"])
        // The framework's own frames are left out: the stack starts where the application handed the error over.
        #expect(
            stack.first?.contains("AxiomCrashTests.CrashReportLoggerTests.logsTheSymbolicatedStackOfASevere") == true,
            "\(stack)")
        #expect(!stack.contains { $0.contains("ErrorPipeline") }, "\(stack)")
        #expect(
            stack.contains {
                $0.contains("logsTheSymbolicatedStackOfASevereHandledErrorWithItsMetadata")
                    && $0.contains("CrashReportLoggerTests.swift:")
            }, "\(stack)")
        #expect("\(entry.message)".hasPrefix("ledger/CORRUPTED handle in append at "))
    }

    @Test func symbolicatesNothingWhenTheLevelDropsTheEntry() throws {
        let (logger, handler) = memoryLogger(level: .critical)
        let crashLogger = CrashReportLogger(logger: logger, metricsFactory: TestMetrics())
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: try LedgerError.registry(), observers: [crashLogger], stackCapturer: UnwindStackCapturer())
        ) {
            Handle()
        }
        _ = try pipeline.decide(LedgerError.corrupted, operation: "append")
        #expect(handler.entries.isEmpty)
    }

    @Test func logsAndCountsEachProcessedAndRejectedCrashReport() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: "null-write")
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        #expect(writeFile(directory.path + "/crash-zzz-empty.axcrash", []))

        let (logger, handler) = memoryLogger()
        let metrics = TestMetrics()
        let crashLogger = CrashReportLogger(logger: logger, crashFrameLimit: 4, metricsFactory: metrics)
        let outcomes = try crashLogger.processPendingReports(with: CrashReportProcessor(directory: directory.path))
        #expect(outcomes.count == 2)

        let entries = handler.entries
        #expect(entries.map(\.level) == [.critical, .error], "\(entries)")
        let crash = try #require(entries.first)
        #expect(crash.metadata["signal"] == "SIGSEGV")
        #expect(crash.metadata["signalNumber"] == "\(SIGSEGV)")
        #expect(crash.metadata["description"] == "Bad pointer dereference")
        #expect(crash.metadata["faultAddress"] == "0x0000000000000000")
        let frames = strings(crash.metadata["frames"])
        #expect(frames.count == 4)
        #expect(frames.first?.hasPrefix("axiom_probe_null_write + ") == true, "\(frames)")
        #expect(frames.first?.contains("axiom_crash_probe.c:\(nullWriteLine)") == true, "\(frames)")
        let report = try #require(crash.metadata["report"].map { "\($0)" })
        #expect(report.hasPrefix(directory.path + "/processed/") && report.hasSuffix(".json"))
        #expect(ChildProcess.readText(report).hasPrefix(#"{"timestamp": ""#))
        #expect("\(crash.message)".hasPrefix("crash: Bad pointer dereference (SIGSEGV) in axiom_probe_null_write"))
        #expect(crash.metadata["crashSite"].map { "\($0)" }?.hasPrefix("axiom_probe_null_write + ") == true)

        let rejected = entries[1]
        #expect(rejected.metadata["reason"] == "raw crash report is empty")
        #expect(rejected.metadata["rawReport"] == "\(directory.path)/rejected/crash-zzz-empty.axcrash")

        let processedCount = try metrics.expectCounter(
            CrashReportLogger.counterLabel, [("outcome", "processed"), ("signal", "SIGSEGV")])
        #expect(processedCount.totalValue == 1)
        let rejectedCount = try metrics.expectCounter(
            CrashReportLogger.counterLabel, [("outcome", "rejected"), ("signal", "unknown")])
        #expect(rejectedCount.totalValue == 1)

        // Processed once: a second pass finds nothing, logs nothing, counts nothing.
        #expect(try crashLogger.processPendingReports(with: CrashReportProcessor(directory: directory.path)).isEmpty)
        #expect(handler.entries.count == 2)
        #expect(metrics.counterTotal(label: CrashReportLogger.counterLabel) == 2)
    }

    @Test func namesTheApplicationCodeThatCalledIntoTheRuntimeAsTheCrashSite() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: "force-unwrap")
        #expect(termination.signal == SIGILL, "\(termination) \(stderr)")

        let (logger, handler) = memoryLogger()
        let crashLogger = CrashReportLogger(logger: logger, metricsFactory: TestMetrics())
        try crashLogger.processPendingReports(with: CrashReportProcessor(directory: directory.path))
        let entry = try #require(handler.entries.first)
        // The fault is inside libswiftCore; the site is the probe's force unwrap.
        let site = try #require(entry.metadata["crashSite"].map { "\($0)" })
        #expect(site.hasPrefix("AxiomCrashProbe.forceUnwrapNil() -> Swift.Int + "), "\(site)")
        #expect(site.contains("Tests/AxiomCrashProbe/main.swift:"), "\(site)")
        // Where the trap itself is: the runtime's assertion failure (debug), or an inlined runtime-failure frame
        // in the probe (release).
        let first = strings(entry.metadata["frames"]).first ?? ""
        #expect(first.contains("libswiftCore.so") || first.contains("Swift runtime failure"), "\(first)")
        // The runtime's message is in the entry, and ends its line.
        let message = try #require(entry.metadata["fatalMessage"].map { "\($0)" })
        #expect(message.contains("Fatal error: Unexpectedly found nil while unwrapping an Optional value"))
        #expect("\(entry.message)".hasSuffix(message))
    }

    @Test func logsTheErrorsDecidedBeforeTheCrash() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = ChildProcess.runProbe(directory: directory.path, kind: "recent-errors")
        let (logger, handler) = memoryLogger()
        try CrashReportLogger(logger: logger, metricsFactory: TestMetrics())
            .processPendingReports(with: CrashReportProcessor(directory: directory.path))
        let entry = try #require(handler.entries.first)
        #expect(entry.metadata["fatalMessage"] == nil)
        #expect(
            strings(entry.metadata["recentErrors"])
                == (32..<40).map { "probe.payments/\($0 % 2 == 0 ? "DECLINED" : "TIMED_OUT") handle in charge-\($0)" })
    }
}
