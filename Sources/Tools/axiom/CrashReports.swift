import ArgumentParser
import AxiomCrash
import AxiomSymbolication
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `axiom symbolicate REPORT [--json] [--symbols DIR]... [--debuginfod URL]...`: one raw crash report,
/// symbolicated, on standard output. `axiom symbolicate --log [FILE]`: log lines with their logged stacks
/// symbolicated. `axiom symbolicate --binary FILE [ADDRESS...] [--json]`: addresses of one ELF file, as
/// `llvm-symbolizer` and `addr2line` take them.
struct Symbolicate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "symbolicate",
        abstract: "Symbolicate one raw crash report, the stacks in log lines (--log), or addresses of a binary.",
        discussion: """
            Prints the readable text form, or with --json the JSON form (the Swift backtracer's shape, a superset), \
            on one line (--json-lines says so for log pipelines). The report \
            is only read: it is not moved or changed. A report that cannot be read or is malformed is an error \
            (exit 1).

            With --log, reads log lines from FILE (or standard input) and prints them with every module-relative \
            frame of a logged error stack (module+0xoffset, its module listed on the same line as \
            module:buildid:path, the way Axiom logs stacks) replaced by its functions, files and lines. Frames \
            whose module's debug info is not found stay as they are.

            Each module is identified by the build-id recorded at crash time; the report may come from another \
            machine. Its debug info is taken from the first place holding a file with that build-id: the module's \
            file (when it carries DWARF), its .gnu_debuglink file (beside it, in .debug/ beside it, under \
            /usr/lib/debug/<its folder>), /usr/lib/debug/.build-id/xx/rest.debug, each --symbols folder \
            (same layout: DIR/.build-id/xx/rest.debug, as `axiom symbols add` fills it), then the debuginfod \
            servers of --debuginfod or DEBUGINFOD_URLS (cache: DEBUGINFOD_CACHE_PATH). A module file with another \
            build-id is never read: its frames keep module and offset, and say why. A report's modules are asked \
            for from debuginfod four at a time. Each module's query is bounded by --debuginfod-timeout; once one \
            goes unanswered that long, no module's is made after it (its frames say the servers did not answer \
            earlier in this run), and all of them together, in wall time, by --debuginfod-total-timeout.

            With --binary FILE, the arguments are addresses in FILE's own address space (0x-prefixed hex, or \
            decimal), as llvm-symbolizer and addr2line take them; with none, they are read from standard input, \
            one a line (blank lines skipped). Each address is answered in the order given, in llvm-symbolizer's \
            layout: one frame per two lines, `function` then `file:line:column`, innermost inlined callee first, \
            the physical function last, then a blank line; `??` and `??:0:0` where nothing is known. With --json \
            (or --json-lines), one JSON object a line: `{"address": "0x…", "frames": [...]}`. An address that \
            cannot be parsed is an error (exit 1) before any is symbolicated; one that cannot be symbolicated is \
            answered with `??` (in JSON: `"error"`), and the command goes on.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "A raw crash report (.axcrash) written by the crash reporter; with --log, a file of log lines; with "
                + "--binary, addresses.",
            valueName: "report-or-address"))
    var inputs: [String] = []

    @Option(help: "Symbolicate addresses of this ELF file (an executable or shared object) instead of a report.")
    var binary: String?

    @Flag(help: "Print the JSON report instead of text.")
    var json = false

    @Flag(help: "Print the JSON report as one line, for log pipelines (JSON Lines).")
    var jsonLines = false

    @Flag(name: .customLong("log"), help: "Symbolicate the logged error stacks of log lines (from FILE or stdin).")
    var logLines = false

    @OptionGroup var debugInfo: DebugInfoOptions

    func validate() throws {
        if binary == nil && !logLines && inputs.count != 1 {
            throw ValidationError("Give one raw crash report, --log [FILE], or --binary FILE with addresses.")
        }
        if logLines && inputs.count > 1 {
            throw ValidationError("--log reads one file of log lines, or standard input.")
        }
    }

    func run() async throws {
        if let binary {
            try Self.symbolicateAddresses(
                of: binary, inputs: inputs, json: json || jsonLines, search: debugInfo.search)
            return
        }
        if logLines {
            try symbolicateLogLines()
            return
        }
        let report = inputs[0]
        let raw: RawCrashReport
        do {
            raw = try RawCrashReport(contentsOf: report)
        } catch {
            if error.code == .unreadable {
                printError("axiom: \(error)")
            } else {
                printError("axiom: \(report) is not a valid raw crash report: \(error)")
            }
            throw ExitCode(1)
        }
        let clearProgress = showDebuginfodProgress()
        let symbolicator = Symbolicator(search: debugInfo.search)
        Self.keepUntilExit(symbolicator)
        let symbolicated = SymbolicatedCrashReport(raw: raw, symbolicator: symbolicator)
        clearProgress()
        if json || jsonLines {
            // The JSON form has no line break of its own (strings escape theirs): one report, one line.
            print(symbolicated.json, terminator: "")
        } else {
            print(symbolicated.text, terminator: "")
        }
    }
}

extension Symbolicate {
    /// Prints each line of the input with its logged stack symbolicated.
    func symbolicateLogLines() throws {
        let symbolicator = Symbolicator(search: debugInfo.search)
        Self.keepUntilExit(symbolicator)
        let finisher = LoggedStackSymbolication(symbolicator: symbolicator)
        if let report = inputs.first, report != "-" {
            guard let data = FileManager.default.contents(atPath: report) else {
                printError("axiom: cannot read \(report)")
                throw ExitCode(1)
            }
            var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init)
            if lines.last?.isEmpty == true { lines.removeLast() }
            // A file is read whole, so what its lines need is read ahead; standard input is finished line by line,
            // as it comes (a log followed as it is written).
            finisher.prepare(lines: lines)
            for line in lines { print(finisher.symbolicate(line: line)) }
        } else {
            while let line = readLine(strippingNewline: true) { print(finisher.symbolicate(line: line)) }
        }
    }
}

/// `axiom symbolicate --binary FILE [ADDRESS...]`.
extension Symbolicate {
    /// Answers the addresses `inputs` (read from standard input when there are none) in `binary`, each in
    /// llvm-symbolizer's layout or, with `json`, as one JSON object a line. `AddressLookupLine` calls it too.
    static func symbolicateAddresses(of binary: String, inputs: [String], json: Bool, search: DebugInfoSearch) throws {
        var texts = inputs
        if texts.isEmpty {
            while let line = readLine() { texts.append(line) }
        }
        var addresses: [UInt64] = []
        addresses.reserveCapacity(texts.count)
        for text in texts {
            let trimmed = text.trimmingWhitespace()
            if trimmed.isEmpty { continue }
            guard let address = Self.parseAddress(trimmed) else {
                printError("axiom: \(trimmed) is not an address (0x-prefixed hex, or decimal)")
                throw ExitCode(1)
            }
            addresses.append(address)
        }
        let symbolicator = Symbolicator(search: search)
        Self.keepUntilExit(symbolicator)
        symbolicator.prepare(modulePath: binary, addresses: addresses)
        var output = ""
        for address in addresses {
            let hex = "0x" + String(address, radix: 16)
            let frames: [SymbolicatedFrame]
            let failure: SymbolicationError?
            do {
                frames = try symbolicator.symbolicate(modulePath: binary, address: address)
                failure = nil
            } catch {
                frames = []
                failure = error
            }
            if json {
                output += AnswerLine.json(address: hex, frames: frames, error: failure.map { "\($0)" })
            } else {
                for frame in frames.isEmpty ? [SymbolicatedFrame()] : frames {
                    output += (frame.function ?? "??") + "\n"
                    output += "\(frame.file ?? "??"):\(frame.line ?? 0):\(frame.column ?? 0)\n"
                }
                output += "\n"
            }
            // Written as it goes, in large pieces: a long list is not held whole, nor written a line at a time.
            if output.utf8.count >= 1 << 16 {
                print(output, terminator: "")
                output = ""
            }
        }
        print(output, terminator: "")
    }

    /// Keeps `symbolicator`, and the modules it reads, until the process ends: each of these commands exits once it
    /// has answered, and freeing every table and unmapping every file one at a time would only spend time (about a
    /// millisecond for a 13 MB binary) on what the process's exit gives back at once. Nothing else is lost: a
    /// symbolicator holds memory and read-only mappings, no file it writes. Held by a global, not leaked, so that
    /// a leak checker (the tests' AddressSanitizer) sees it still in use at exit.
    static func keepUntilExit(_ symbolicator: Symbolicator) {
        keptUntilExit.withLock { $0.append(symbolicator) }
    }

    private static let keptUntilExit = Mutex<[Symbolicator]>([])

    /// `0x`-prefixed hexadecimal, or decimal.
    static func parseAddress(_ text: String) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }
}

/// `axiom crash-reports`: `process` (the default) and `group`.
struct CrashReports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-reports",
        abstract: "Process the pending crash reports of a directory, or group those of many machines.",
        subcommands: [ProcessCrashReports.self, CrashGroups.self],
        defaultSubcommand: ProcessCrashReports.self
    )
}

/// `axiom crash-reports [process] --dir DIR [--json]`: processes every pending raw report of a crash directory.
struct ProcessCrashReports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Process the pending crash reports of a directory (the default).",
        discussion: """
            Each pending raw report is symbolicated into DIR/processed (JSON and text, the raw report moved beside \
            them); a malformed one is moved to DIR/rejected with a .reason file. A report the crashed process \
            could not finish (a .tmp file whose writer is gone: a full disk, say) is a crash whose report is lost: \
            it is listed as incomplete and moved to DIR/incomplete, where it is kept. Nothing is deleted. Each \
            report is listed with its stable id, the same on every run. Exits 0 when every report was processed, \
            1 when one was rejected, incomplete or could not be written. Debug info is found as `axiom symbolicate` \
            finds it.
            """
    )

    @Option(name: .customLong("dir"), help: "The directory given to CrashReporter.install(directory:).")
    var directory: String

    @Flag(help: "Print one JSON object listing processed, rejected and incomplete reports.")
    var json = false

    @OptionGroup var debugInfo: DebugInfoOptions

    func run() async throws {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            printError("axiom: no crash report directory at \(directory)")
            throw ExitCode(1)
        }
        let outcomes: [CrashReportProcessor.Processing]
        // The reports' ids, in the order of the outcomes (one each).
        var reportIDs: [String?] = []
        let clearProgress = showDebuginfodProgress()
        defer { clearProgress() }
        do {
            outcomes = try CrashReportProcessor(
                directory: directory, symbolicator: Symbolicator(search: debugInfo.search)
            ).processPendingReports { reportIDs.append($0.reportID) }
        } catch {
            printError("axiom: \(error)")
            throw ExitCode(1)
        }
        let summary = CrashReportsSummary(directory: directory, outcomes: outcomes, reportIDs: reportIDs)
        if json {
            try printJSON(summary)
        } else {
            print(summary.text, terminator: "")
        }
        if !summary.rejected.isEmpty || !summary.incomplete.isEmpty || !summary.failed.isEmpty { throw ExitCode(1) }
    }
}

/// The JSON shape of `axiom crash-reports --json`. Keys are stable: scripts read them.
struct CrashReportsSummary: Encodable {
    struct Processed: Encodable {
        /// The report's stable id (`ProcessedCrashReport.reportID`).
        let reportID: String
        /// The raw report, now in `processed/`.
        let rawReport: String
        let json: String
        let text: String
        let signal: String
        let description: String
        let timestamp: String
        /// The innermost frame of the executable's own code (see `SymbolicatedCrashReport.crashSite`).
        let crashSite: String?
        /// What identifies the bug (`SymbolicatedCrashReport.fingerprint`): reports with one value are one bug.
        let fingerprint: Fingerprint
    }

    /// A report's `CrashFingerprint`, without the frames it was made of (the JSON report has them).
    struct Fingerprint: Encodable {
        let value: String
        let version: Int
        let provisional: Bool
        let kind: String

        init(_ fingerprint: CrashFingerprint) {
            self.value = fingerprint.value
            self.version = fingerprint.version
            self.provisional = fingerprint.isProvisional
            self.kind = fingerprint.kind
        }
    }

    struct SetAside: Encodable {
        /// The report's stable id; absent for a report that could not be read.
        let reportID: String?
        let rawReport: String
        let reason: String
    }

    /// A crash whose report its process could not finish.
    struct Incomplete: Encodable {
        let reportID: String
        /// The partial report, now in `incomplete/`.
        let rawReport: String
        /// The crashed process.
        let pid: Int32
        /// When it crashed, to the second (from the report's name).
        let timestamp: String?
    }

    let directory: String
    let processed: [Processed]
    /// Malformed reports, moved to `rejected/` with a `.reason` file.
    let rejected: [SetAside]
    /// Crashes whose report was cut short (its writer died before finishing it), moved to `incomplete/`.
    let incomplete: [Incomplete]
    /// Reports that could not be written or moved; still pending.
    let failed: [SetAside]

    init(directory: String, outcomes: [CrashReportProcessor.Processing], reportIDs: [String?]) {
        self.directory = directory
        var processed: [Processed] = []
        var rejected: [SetAside] = []
        var incomplete: [Incomplete] = []
        var failed: [SetAside] = []
        for (index, outcome) in outcomes.enumerated() {
            let reportID = index < reportIDs.count ? reportIDs[index] : nil
            switch outcome {
            case .processed(let report):
                processed.append(
                    Processed(
                        reportID: report.reportID, rawReport: report.rawPath, json: report.jsonPath,
                        text: report.textPath, signal: report.report.raw.signalName,
                        description: report.report.crashDescription, timestamp: report.report.timestamp,
                        crashSite: report.report.crashSite?.summary,
                        fingerprint: Fingerprint(report.report.fingerprint)))
            case .rejected(let path, let reason):
                rejected.append(SetAside(reportID: reportID, rawReport: path, reason: reason.description))
            case .incomplete(let path, let pid, let reportID):
                let seconds = CrashReporter.temporaryReportWriter(name: String(path.split(separator: "/").last ?? ""))
                incomplete.append(
                    Incomplete(
                        reportID: reportID, rawReport: path, pid: pid,
                        timestamp: seconds.map {
                            SymbolicatedCrashReport.iso8601(.init(seconds: $0.seconds, nanoseconds: 0))
                        }))
            case .failed(let path, let reason):
                failed.append(SetAside(reportID: nil, rawReport: path, reason: reason))
            }
        }
        self.processed = processed
        self.rejected = rejected
        self.incomplete = incomplete
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
        for report in incomplete {
            let time = report.timestamp.map { " at \($0)" } ?? ""
            lines.append(
                "incomplete \(report.rawReport): process \(report.pid) crashed\(time) but its report was cut short "
                    + "(its writer died before finishing it: a full disk?); the partial file is kept")
        }
        for report in failed { lines.append("failed    \(report.rawReport): \(report.reason) (left pending)") }
        if lines.isEmpty { lines.append("no pending crash reports in \(directory)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Where debug info is looked for, shared by `symbolicate` and `crash-reports`.
struct DebugInfoOptions: ParsableArguments {
    @Option(name: .customLong("symbols"), help: "A symbol store folder laid out by build-id (repeatable).")
    var symbolStores: [String] = []

    @Option(
        name: .customLong("debug-dir"),
        help: "A global debug folder, searched before /usr/lib/debug (repeatable; laid out as /usr/lib/debug).")
    var debugRoots: [String] = []

    @Option(name: .customLong("debuginfod"), help: "A debuginfod server URL (repeatable); default: DEBUGINFOD_URLS.")
    var debuginfodURLs: [String] = []

    @Option(
        name: .customLong("debuginfod-timeout"),
        help: "Seconds one module's debuginfod query may take (default: DEBUGINFOD_TIMEOUT, else 10).")
    var debuginfodTimeout: Int?

    @Option(
        name: .customLong("debuginfod-total-timeout"),
        help: ArgumentHelp(
            "Seconds all of a run's debuginfod queries may take together (default: 30); then the remaining modules "
                + "are not asked. Once a query goes unanswered for its whole timeout, none is asked again.",
            valueName: "seconds"))
    var debuginfodTotalTimeout: Int?

    /// The search the options describe.
    var search: DebugInfoSearch {
        Self.search(
            symbolStores: symbolStores, debugRoots: debugRoots, debuginfodURLs: debuginfodURLs,
            debuginfodTimeout: debuginfodTimeout, debuginfodTotalTimeout: debuginfodTotalTimeout)
    }

    /// The search options of these values describe (`AddressLookupLine` reads them without ArgumentParser).
    static func search(
        symbolStores: [String], debugRoots: [String], debuginfodURLs: [String], debuginfodTimeout: Int?,
        debuginfodTotalTimeout: Int?
    ) -> DebugInfoSearch {
        var servers = DebugInfoSearch.Debuginfod.fromEnvironment()
        if !debuginfodURLs.isEmpty {
            servers = DebugInfoSearch.Debuginfod(urls: debuginfodURLs, timeoutSeconds: servers?.timeoutSeconds ?? 10)
        }
        if let debuginfodTimeout { servers?.timeoutSeconds = max(1, debuginfodTimeout) }
        if let debuginfodTotalTimeout { servers?.totalTimeoutSeconds = max(1, debuginfodTotalTimeout) }
        return DebugInfoSearch(
            // Added to the system's folders rather than replacing them, so that naming one's own folder does not
            // lose the lines of the C library and of every other package's debug info.
            debugRoots: debugRoots + DebugInfoSearch.local.debugRoots.filter { !debugRoots.contains($0) },
            symbolStores: symbolStores,
            debuginfod: servers)
    }
}
