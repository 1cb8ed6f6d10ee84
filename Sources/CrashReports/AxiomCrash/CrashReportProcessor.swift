import AxiomSymbolication
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns the raw reports a crash left behind into symbolicated JSON and text reports.
///
/// ```
/// <directory>/crash-….axcrash ──parse──► symbolicate ──► processed/crash-….json
///                                                     └► processed/crash-….txt
///                              then the raw file moves ► processed/crash-….axcrash
/// malformed ─────────────────────────────────────────► rejected/crash-….axcrash
///                                                     + rejected/crash-….axcrash.reason
/// cut short (crash-….axcrash.tmp, its writer gone) ──► incomplete/crash-….axcrash.tmp
/// ```
///
/// A raw report moves to `processed/` only after both forms are written, so a crash of
/// the processor itself loses nothing: the report stays pending and is processed again
/// (its JSON and text are rewritten). Nothing is ever deleted.
///
/// A `.tmp` report whose writer is gone is one the crashed process could not finish (a full disk, a folder
/// removed): it is reported once as ``Processing/incomplete(path:pid:reportID:)`` and moved to `incomplete/`,
/// where it is kept for inspection. A `.tmp` whose writer may still be writing is left alone.
///
/// Every report has a stable id (``ProcessedCrashReport/reportID``), the same on every run that reads it: a
/// consumer that is handed a report twice (a run stopped between handing it on and marking it done) can drop
/// the repeat.
public struct CrashReportProcessor: Sendable {
    /// The directory given to ``CrashReporter/install(directory:afterReport:)``.
    package let directory: String
    package let symbolicator: Symbolicator

    /// What became of one raw report.
    public enum Processing: Sendable {
        /// Symbolicated and written; the raw report is now in `processed/`.
        case processed(ProcessedCrashReport)
        /// Malformed; moved to `rejected/` with a `.reason` file beside it.
        case rejected(path: String, reason: RawReportError)
        /// A crash whose report was cut short: its writer (process `pid`) died before finishing it (a full disk,
        /// say). The partial `.tmp` file is moved to `incomplete/` (`path`) and kept; `reportID` is its stable id.
        case incomplete(path: String, pid: Int32, reportID: String)
        /// Could not be written or moved; left pending for the next run.
        case failed(path: String, reason: String)
    }

    /// A processor of the reports in `directory`. Registers the crash reporter's domains in
    /// `ErrorRegistry.shared` (see ``CrashErrorDomains``).
    public init(directory: String, symbolicator: Symbolicator = Symbolicator()) {
        self.directory = directory
        self.symbolicator = symbolicator
        try? CrashErrorDomains.register()
    }

    /// Processes every pending report, oldest name first: the complete ones, and the `.tmp` ones whose writer
    /// is gone (reported as ``Processing/incomplete(path:pid:reportID:)``).
    ///
    /// A report that another process (a second processor of the same folder) took between the listing and its
    /// reading is left to that process: it is not in the result.
    public func processPendingReports() throws(CrashReporterError) -> [Processing] {
        try pendingPaths().compactMap { path in prepareListed(path)?.markDone() }
    }

    /// Processes one raw report in `directory`, the folder the processor was made with.
    public func process(reportAt path: String) -> Processing {
        prepare(reportAt: path).markDone()
    }

    // MARK: Handed on before marked done

    /// The paths ``processPendingReports()`` processes: the complete reports and the abandoned `.tmp` ones,
    /// oldest name first.
    package func pendingPaths() throws(CrashReporterError) -> [String] {
        let complete = try CrashReporter.pendingReports(in: directory)
        let abandoned = CrashReporter.abandonedReports(in: directory)
        return (complete + abandoned).sorted { $0.split(separator: "/").last! < $1.split(separator: "/").last! }
    }

    /// Processes every pending report, handing each to `deliver` (a log entry written, a record exported) before
    /// it is marked done, so a run stopped at any point hands nothing on fewer than once: a report handed on and
    /// not yet marked done is handed on again by the next run, with the same ``PendingCrashReport/reportID``.
    /// When `deliver` throws, the report stays pending (its outcome is `.failed`).
    package func processPendingReports(
        delivering deliver: (PendingCrashReport) throws -> Void
    ) throws(CrashReporterError) -> [Processing] {
        try pendingPaths().compactMap { path in
            guard let pending = prepareListed(path) else { return nil }
            do {
                try deliver(pending)
            } catch {
                return .failed(path: path, reason: "not handed on: \(error)")
            }
            return pending.markDone()
        }
    }

    /// ``processPendingReports(delivering:)`` for an asynchronous `deliver` (an export over the network).
    package func processPendingReports(
        delivering deliver: (PendingCrashReport) async throws -> Void
    ) async throws(CrashReporterError) -> [Processing] {
        var outcomes: [Processing] = []
        for path in try pendingPaths() {
            guard let pending = prepareListed(path) else { continue }
            do {
                try await deliver(pending)
            } catch {
                outcomes.append(.failed(path: path, reason: "not handed on: \(error)"))
                continue
            }
            outcomes.append(pending.markDone())
        }
        return outcomes
    }

    /// ``prepare(reportAt:)`` for a listed report, or nil when it is gone since the listing (another processor of
    /// the folder took it).
    private func prepareListed(_ path: String) -> PendingCrashReport? {
        let pending = prepare(reportAt: path)
        if case .failed = pending.outcome, access(path, F_OK) != 0, errno == ENOENT { return nil }
        return pending
    }

    /// Reads, symbolicates and writes the forms of one report, without marking it done: the raw report stays
    /// pending until ``PendingCrashReport/markDone()``.
    package func prepare(reportAt path: String) -> PendingCrashReport {
        let name = String(path.split(separator: "/").last ?? "")
        if name.hasSuffix(CrashReporter.rawReportSuffix + ".tmp") { return prepareIncomplete(path: path, name: name) }
        let bytes: [UInt8]
        let raw: RawCrashReport
        do {
            bytes = try RawCrashReport.readFile(path)
        } catch {
            if error.code == .unreadable {
                return PendingCrashReport(outcome: .failed(path: path, reason: error.description), reportID: nil)
            }
            return prepareRejected(path: path, name: name, reason: error, reportID: CrashReportID.make(name: name))
        }
        let reportID = CrashReportID.make(name: name, bytes: bytes)
        do {
            raw = try RawCrashReport(bytes: bytes)
        } catch {
            return prepareRejected(path: path, name: name, reason: error, reportID: reportID)
        }

        let report = SymbolicatedCrashReport(raw: raw, symbolicator: symbolicator)
        let processed = directory + "/processed"
        let stem =
            name.hasSuffix(CrashReporter.rawReportSuffix)
            ? String(name.dropLast(CrashReporter.rawReportSuffix.count)) : name
        let result = ProcessedCrashReport(
            report: report, reportID: reportID, rawPath: processed + "/" + name,
            jsonPath: processed + "/" + stem + ".json", textPath: processed + "/" + stem + ".txt")
        do {
            try makeDirectory(processed)
            try writeFile(result.jsonPath, report.json)
            try writeFile(result.textPath, report.text)
        } catch {
            return PendingCrashReport(outcome: .failed(path: path, reason: error.message), reportID: reportID)
        }
        return PendingCrashReport(outcome: .processed(result), reportID: reportID, move: (path, result.rawPath))
    }

    private func prepareRejected(
        path: String, name: String, reason: RawReportError, reportID: String
    ) -> PendingCrashReport {
        let rejected = directory + "/rejected"
        do {
            try makeDirectory(rejected)
            try writeFile(rejected + "/" + name + ".reason", reason.description + "\n")
        } catch {
            return PendingCrashReport(outcome: .failed(path: path, reason: error.message), reportID: reportID)
        }
        return PendingCrashReport(
            outcome: .rejected(path: rejected + "/" + name, reason: reason), reportID: reportID,
            move: (path, rejected + "/" + name))
    }

    private func prepareIncomplete(path: String, name: String) -> PendingCrashReport {
        let bytes: [UInt8]
        do {
            bytes = try RawCrashReport.readFile(path)
        } catch {
            // Too large to read whole: the id is the name's alone.
            if error.code == .unreadable {
                return PendingCrashReport(outcome: .failed(path: path, reason: error.description), reportID: nil)
            }
            bytes = []
        }
        let reportID = CrashReportID.make(name: name, bytes: bytes)
        let incomplete = directory + "/incomplete"
        do {
            try makeDirectory(incomplete)
        } catch {
            return PendingCrashReport(outcome: .failed(path: path, reason: error.message), reportID: reportID)
        }
        let pid = CrashReporter.temporaryReportWriter(name: name)?.pid ?? 0
        return PendingCrashReport(
            outcome: .incomplete(path: incomplete + "/" + name, pid: pid, reportID: reportID), reportID: reportID,
            move: (path, incomplete + "/" + name))
    }
}

/// One pending report, read and written but not yet marked done: what ``CrashReportProcessor`` hands on (to a
/// log, an exporter) before it moves the raw report out of the pending folder.
package struct PendingCrashReport: Sendable {
    /// What became of the report, as it will be once marked done (its paths are the ones after the move).
    package let outcome: CrashReportProcessor.Processing
    /// The report's stable id (see ``CrashReportID``); nil when the file could not be read.
    package let reportID: String?
    /// The rename that marks it done: from the pending folder to `processed/`, `rejected/` or `incomplete/`.
    let move: (from: String, to: String)?

    init(
        outcome: CrashReportProcessor.Processing, reportID: String?, move: (from: String, to: String)? = nil
    ) {
        self.outcome = outcome
        self.reportID = reportID
        self.move = move
    }

    /// Moves the raw report out of the pending folder. Returns ``outcome``, or `.failed` (the report stays
    /// pending, and is handed on again by the next run) when the move fails. A report another process moved
    /// meanwhile counts as moved.
    package func markDone() -> CrashReportProcessor.Processing {
        guard let move else { return outcome }
        do {
            try moveTaken(move.from, to: move.to)
        } catch {
            return .failed(path: move.from, reason: error.message)
        }
        return outcome
    }
}

/// The stable id of a crash report: the report file's name without its suffixes
/// (`crash-<seconds>-<pid>-<tid>-<counter>`, unique in its folder) and 16 hexadecimal digits of the FNV-1a hash
/// of its bytes (which hold the crash's addresses, so two machines' reports of the same name differ), for
/// example `crash-1764310000-4242-4242-0-9f3c2a1b0c4d5e6f`. Every run that reads the same file gives the same
/// id, so a log backend or collector can drop an entry handed on twice.
enum CrashReportID {
    static func make(name: String, bytes: [UInt8] = []) -> String {
        var stem = Substring(name)
        if stem.hasSuffix(".tmp") { stem = stem.dropLast(4) }
        if stem.hasSuffix(CrashReporter.rawReportSuffix) { stem = stem.dropLast(CrashReporter.rawReportSuffix.count) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return stem + "-" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// A report written by ``CrashReportProcessor``, with where its files are.
public struct ProcessedCrashReport: Sendable {
    public var report: SymbolicatedCrashReport
    /// The report's stable id: its raw file's name and a hash of its bytes, the same on every run that reads
    /// it (`crash-1764310000-4242-4242-0-9f3c2a1b0c4d5e6f`). Log entries carry it as `reportID`, OTLP records
    /// as `log.record.uid`: a report handed on twice (a run stopped between logging it and moving it to
    /// `processed/`) has the same id both times.
    public var reportID: String
    /// The raw report, moved into `processed/`.
    public var rawPath: String
    public var jsonPath: String
    public var textPath: String
}

/// A file-system step of the processor that failed.
struct FileError: Error {
    var message: String

    init(_ operation: String, _ path: String, errno: Int32) {
        message = "\(operation) \(path): \(errorText(errno))"
    }
}

private func makeDirectory(_ path: String) throws(FileError) {
    if mkdir(path, 0o700) != 0 && errno != EEXIST { throw FileError("mkdir", path, errno: errno) }
}

/// Makes the temporary names of ``writeFile(_:_:)`` unique within the process.
private let temporaryCounter = Atomic<UInt64>(0)

/// Writes a temporary file and renames it to `path`, so a reader never sees half a file. The temporary name is
/// this process's and this call's own (`<path>.<pid>.<counter>.tmp`, created exclusively): two processes that
/// process the same folder at once each write their own, and the last rename wins with a whole file.
private func writeFile(_ path: String, _ text: String) throws(FileError) {
    let counter = temporaryCounter.add(1, ordering: .relaxed).oldValue
    let temporary = path + ".\(getpid()).\(counter).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("open", temporary, errno: errno) }
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
            let saved = errno
            close(fd)
            unlink(temporary)
            throw FileError("write", temporary, errno: saved)
        }
        written += count
    }
    // Durable before the raw report is marked processed.
    if fsync(fd) != 0 {
        let saved = errno
        close(fd)
        unlink(temporary)
        throw FileError("fsync", temporary, errno: saved)
    }
    close(fd)
    do {
        try move(temporary, to: path)
    } catch {
        unlink(temporary)
        throw error
    }
}

private func move(_ source: String, to destination: String) throws(FileError) {
    if rename(source, destination) != 0 { throw FileError("rename", source, errno: errno) }
}

/// Moves a pending report to where it is marked done. When the source is gone and the destination is there,
/// another process (a second processor of the same folder) moved it meanwhile: that is done too.
private func moveTaken(_ source: String, to destination: String) throws(FileError) {
    if rename(source, destination) == 0 { return }
    let failure = errno
    if failure == ENOENT && access(destination, F_OK) == 0 { return }
    throw FileError("rename", source, errno: failure)
}
