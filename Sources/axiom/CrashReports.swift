import ArgumentParser
import AxiomCrash
import AxiomSymbolication
import Foundation

/// `axiom symbolicate REPORT [--json]`: one raw crash report, symbolicated, on standard output.
struct Symbolicate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Symbolicate one raw crash report.",
        discussion: """
            Prints the readable text form, or with --json the JSON form (the Swift backtracer's shape). The report \
            is only read: it is not moved or changed. A report that cannot be read or is malformed is an error \
            (exit 1).
            """
    )

    @Argument(help: "A raw crash report (.axcrash) written by the crash reporter.")
    var report: String

    @Flag(help: "Print the JSON report instead of text.")
    var json = false

    func run() async throws {
        let raw: RawCrashReport
        do {
            raw = try RawCrashReport(contentsOf: report)
        } catch {
            switch error {
            case .unreadable: printError("axiom: \(error)")
            default: printError("axiom: \(report) is not a valid raw crash report: \(error)")
            }
            throw ExitCode(1)
        }
        let symbolicated = SymbolicatedCrashReport(raw: raw, symbolicator: Symbolicator())
        if json {
            print(symbolicated.json)
        } else {
            print(symbolicated.text, terminator: "")
        }
    }
}

/// `axiom crash-reports --dir DIR [--json]`: processes every pending raw report of a crash directory.
struct CrashReports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-reports",
        abstract: "Process the pending crash reports of a directory.",
        discussion: """
            Each pending raw report is symbolicated into DIR/processed (JSON and text, the raw report moved beside \
            them); a malformed one is moved to DIR/rejected with a .reason file. Nothing is deleted. Exits 0 when \
            every report was processed, 1 when one was rejected or could not be written.
            """
    )

    @Option(name: .customLong("dir"), help: "The directory given to CrashReporter.install(directory:).")
    var directory: String

    @Flag(help: "Print one JSON object listing processed and rejected reports.")
    var json = false

    func run() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            printError("axiom: no crash report directory at \(directory)")
            throw ExitCode(1)
        }
        let outcomes: [CrashReportProcessor.Outcome]
        do {
            outcomes = try CrashReportProcessor(directory: directory).processPendingReports()
        } catch {
            printError("axiom: \(error)")
            throw ExitCode(1)
        }
        let summary = CrashReportsSummary(directory: directory, outcomes: outcomes)
        if json {
            try printJSON(summary)
        } else {
            print(summary.text, terminator: "")
        }
        if !summary.rejected.isEmpty || !summary.failed.isEmpty { throw ExitCode(1) }
    }
}

/// The JSON shape of `axiom crash-reports --json`. Keys are stable: scripts read them.
struct CrashReportsSummary: Encodable {
    struct Processed: Encodable {
        /// The raw report, now in `processed/`.
        let rawReport: String
        let json: String
        let text: String
        let signal: String
        let description: String
        let timestamp: String
        /// The innermost frame of the executable's own code (see `SymbolicatedCrashReport.crashSite`).
        let crashSite: String?
    }

    struct SetAside: Encodable {
        let rawReport: String
        let reason: String
    }

    let directory: String
    let processed: [Processed]
    /// Malformed reports, moved to `rejected/` with a `.reason` file.
    let rejected: [SetAside]
    /// Reports that could not be written or moved; still pending.
    let failed: [SetAside]

    init(directory: String, outcomes: [CrashReportProcessor.Outcome]) {
        self.directory = directory
        var processed: [Processed] = []
        var rejected: [SetAside] = []
        var failed: [SetAside] = []
        for outcome in outcomes {
            switch outcome {
            case .processed(let report):
                processed.append(
                    Processed(
                        rawReport: report.rawPath, json: report.jsonPath, text: report.textPath,
                        signal: report.report.raw.signalName, description: report.report.crashDescription,
                        timestamp: report.report.timestamp,
                        crashSite: report.report.crashSite?.summary))
            case .rejected(let path, let reason):
                rejected.append(SetAside(rawReport: path, reason: reason.description))
            case .failed(let path, let reason):
                failed.append(SetAside(rawReport: path, reason: reason))
            }
        }
        self.processed = processed
        self.rejected = rejected
        self.failed = failed
    }

    /// One line per report.
    var text: String {
        var lines: [String] = []
        for report in processed {
            var line = "processed \(report.rawReport): \(report.signal) \(report.description)"
            if let site = report.crashSite { line += " in \(site)" }
            lines.append(line + " -> \(report.json)")
        }
        for report in rejected { lines.append("rejected  \(report.rawReport): \(report.reason)") }
        for report in failed { lines.append("failed    \(report.rawReport): \(report.reason) (left pending)") }
        if lines.isEmpty { lines.append("no pending crash reports in \(directory)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
