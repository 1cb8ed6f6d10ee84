import Axiom
import AxiomCrash
import AxiomPlugins
import Foundation
import Logging

/// The demo: one application's errors, from identity to fate to trace.
///
/// 1. The crash reporter is installed, and reports left by an earlier run are processed.
/// 2. Plugins teach the registry the NWC, WebRTC, video-app and payment-methods domains.
/// 3. A wallet pays invoices: a rate limit is recovered after 60 s (on a fast-forward clock), a missing
///    balance is presented to the user, an expired connection escalates and is reconnected.
/// 4. The payment-methods screen skips a failing wallet and only fails when nothing is left.
/// 5. Calls go through a circuit breaker that opens, rejects, probes and closes; gateway registration gives up
///    after three tries.
/// 6. A child process crashes; its report is symbolicated and logged.
struct Demo {
    let clock = FastForwardClock()
    let tally = TallyObserver()
    let reportDirectory = NSTemporaryDirectory() + "axiom-demo/crash-reports"

    /// Every log line goes through redaction, then the structured one-line format, into the transcript.
    static let bootstrapLogging: Void = {
        RedactingLogHandler.bootstrap { label in
            var handler = StructuredLogHandler(label: label, sink: { line in print("   log │ \(line)") })
            handler.logLevel = .info
            return handler
        }
    }()

    var logger: Logger {
        Demo.bootstrapLogging
        return Logger(label: "axiom.demo")
    }

    /// Logs crash reports, and the symbolicated stacks of severe errors a `Handle` handler takes.
    var crashLogger: CrashReportLogger {
        CrashReportLogger(logger: logger, symbolicator: CrashScene.symbolicator, crashFrameLimit: 3)
    }

    var configuration: PipelineConfiguration {
        PipelineConfiguration(
            registry: .shared, observers: [tally, LoggingObserver(logger: logger), crashLogger], clock: clock,
            stackCapturer: UnwindStackCapturer())
    }

    func run() async {
        print("Axiom for Linux: every error has a known identity, a decided fate and a trace.")
        let pending = CrashScene.installReporter(directory: reportDirectory, logger: crashLogger)
        PluginScene.load()
        await PaymentScene(configuration: configuration, clock: clock).run()
        await PaymentMethodsScene(configuration: configuration).run()
        await CallScene(configuration: configuration, clock: clock).run()
        CrashScene.crashChildAndReport(directory: reportDirectory, pendingBefore: pending, logger: crashLogger)

        Transcript.section("Outcomes by domain and disposition")
        tally.printTable()
        Transcript.line("simulated time spent waiting: \(clock.elapsed)")
    }
}
