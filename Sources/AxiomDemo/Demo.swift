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
/// 5. A child process crashes; its report is symbolicated and logged.
struct Demo {
    let clock = FastForwardClock()
    let tally = TallyObserver()
    let reportDirectory = NSTemporaryDirectory() + "axiom-demo/crash-reports"

    var logger: Logger {
        var logger = Logger(label: "axiom.demo") { _ in DemoLogHandler() }
        logger.logLevel = .info
        return logger
    }

    var configuration: PipelineConfiguration {
        PipelineConfiguration(
            registry: .shared, observers: [tally, LoggingObserver(logger: logger)], clock: clock)
    }

    func run() async {
        print("Axiom for Linux: every error has a known identity, a decided fate and a trace.")
        let pending = CrashScene.installReporter(directory: reportDirectory)
        PluginScene.load()
        await PaymentScene(configuration: configuration, clock: clock).run()
        await PaymentMethodsScene(configuration: configuration).run()
        CrashScene.crashChildAndReport(directory: reportDirectory, pendingBefore: pending)

        Transcript.section("Outcomes by domain and disposition")
        tally.printTable()
        Transcript.line("simulated time spent waiting: \(clock.elapsed)")
    }
}

/// Prints log entries inside the transcript, with their metadata in a stable order.
struct DemoLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let keys = ["code", "category", "layer", "disposition", "operation", "attempt"]
        let fields = keys.compactMap { key in merged[key].map { "\(key)=\($0)" } }
        print("   log │ [\(event.level)] \(event.message) " + fields.joined(separator: " "))
    }
}
