import AxiomCrash
import AxiomSymbolication
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Installs the crash reporter, crashes a child process on purpose, and shows its symbolicated report.
enum CrashScene {
    static let childFlag = "--crash-child"

    /// One symbolicator for the whole demo: modules are opened once and their tables cached.
    static let symbolicator = Symbolicator()

    /// Installs the reporter and processes what an earlier run left. Returns how many reports were pending.
    static func installReporter(directory: String, logger: CrashReportLogger) -> Int {
        Transcript.section("Crash reporter")
        do {
            // Reports may hold memory addresses and paths: the directory is the user's alone.
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try CrashReporter.install(directory: directory)
            Transcript.line("installed; reports go to \(directory)")
        } catch {
            Transcript.line("could not install: \(error)")
        }
        let pending = (try? CrashReporter.pendingReports(in: directory))?.count ?? 0
        if pending > 0 {
            Transcript.line("\(pending) report(s) pending from an earlier run")
            summarize(processAll(directory, logger))
        }
        return pending
    }

    /// The child: install the reporter, then write through a null pointer. Never returns.
    static func crashAsChild(reportDirectory: String) -> Never {
        do { try CrashReporter.install(directory: reportDirectory) } catch { exit(2) }
        writeThroughNull()
    }

    @inline(never)
    static func writeThroughNull() -> Never {
        let pointer = UnsafeMutablePointer<Int>(bitPattern: 8)!
        pointer.pointee = 42
        fatalError("unreachable: the write above faults")
    }

    static func crashChildAndReport(directory: String, pendingBefore: Int, logger: CrashReportLogger) {
        Transcript.section("A crash in a child process")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = [childFlag, directory]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        child.environment = environment
        do {
            try child.run()
            child.waitUntilExit()
        } catch {
            Transcript.line("could not start the child: \(error)")
            return
        }
        let signal = child.terminationReason == .uncaughtSignal ? child.terminationStatus : 0
        Transcript.line(
            "child \(child.processIdentifier) died by signal \(signal) (\(signal == SIGSEGV ? "SIGSEGV" : "?"))")
        summarize(processAll(directory, logger))
    }

    static func processAll(_ directory: String, _ logger: CrashReportLogger) -> [CrashReportProcessor.Processing] {
        let processor = CrashReportProcessor(directory: directory, symbolicator: symbolicator)
        return (try? logger.processPendingReports(with: processor)) ?? []
    }

    static func summarize(_ outcomes: [CrashReportProcessor.Processing]) {
        for outcome in outcomes {
            switch outcome {
            case .processed(let processed):
                let report = processed.report
                Transcript.line("report: \(report.crashDescription)")
                let ours = report.frames.filter { $0.file?.contains("/Sources/") == true }.prefix(3)
                for frame in ours {
                    let location = [frame.file.map { ($0 as NSString).lastPathComponent }, frame.line.map(String.init)]
                        .compactMap { $0 }.joined(separator: ":")
                    Transcript.line("   at \(frame.function ?? frame.symbol ?? "?") (\(location))")
                }
                Transcript.line("JSON: \(processed.jsonPath)")
            case .rejected(let path, let reason):
                Transcript.line("rejected \(path): \(reason) (kept aside in rejected/)")
            case .incomplete(let path, let pid, _):
                Transcript.line("incomplete \(path): process \(pid) crashed but its report was cut short (kept)")
            case .failed(let path, let reason):
                Transcript.line("left pending \(path): \(reason)")
            }
        }
    }
}
