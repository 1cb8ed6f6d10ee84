import AxiomSymbolication

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
/// ```
///
/// A raw report moves to `processed/` only after both forms are written, so a crash of
/// the processor itself loses nothing: the report stays pending and is processed again
/// (its JSON and text are rewritten). Nothing is ever deleted.
public struct CrashReportProcessor: Sendable {
    /// The directory given to ``CrashReporter/install(directory:afterReport:)``.
    public let directory: String
    public let symbolicator: Symbolicator

    /// What became of one raw report.
    public enum Processing: Sendable {
        /// Symbolicated and written; the raw report is now in `processed/`.
        case processed(ProcessedCrashReport)
        /// Malformed; moved to `rejected/` with a `.reason` file beside it.
        case rejected(path: String, reason: RawReportError)
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

    /// Processes every pending report, oldest name first.
    public func processPendingReports() throws(CrashReporterError) -> [Processing] {
        try CrashReporter.pendingReports(in: directory).map { process(reportAt: $0) }
    }

    /// Processes one raw report in ``directory``.
    public func process(reportAt path: String) -> Processing {
        let name = String(path.split(separator: "/").last ?? "")
        let raw: RawCrashReport
        do {
            raw = try RawCrashReport(contentsOf: path)
        } catch {
            if error.code == .unreadable { return .failed(path: path, reason: error.description) }
            let rejected = directory + "/rejected"
            do {
                try makeDirectory(rejected)
                try writeFile(rejected + "/" + name + ".reason", error.description + "\n")
                try move(path, to: rejected + "/" + name)
            } catch {
                return .failed(path: path, reason: error.message)
            }
            return .rejected(path: rejected + "/" + name, reason: error)
        }

        let report = SymbolicatedCrashReport(raw: raw, symbolicator: symbolicator)
        let processed = directory + "/processed"
        let stem =
            name.hasSuffix(CrashReporter.rawReportSuffix)
            ? String(name.dropLast(CrashReporter.rawReportSuffix.count)) : name
        let result = ProcessedCrashReport(
            report: report, rawPath: processed + "/" + name, jsonPath: processed + "/" + stem + ".json",
            textPath: processed + "/" + stem + ".txt")
        do {
            try makeDirectory(processed)
            try writeFile(result.jsonPath, report.json)
            try writeFile(result.textPath, report.text)
            try move(path, to: result.rawPath)
        } catch {
            return .failed(path: path, reason: error.message)
        }
        return .processed(result)
    }
}

/// A report written by ``CrashReportProcessor``, with where its files are.
public struct ProcessedCrashReport: Sendable {
    public var report: SymbolicatedCrashReport
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

/// Writes `<path>.tmp` and renames it, so a reader never sees half a file.
private func writeFile(_ path: String, _ text: String) throws(FileError) {
    let temporary = path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("open", temporary, errno: errno) }
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
            let saved = errno
            close(fd)
            throw FileError("write", temporary, errno: saved)
        }
        written += count
    }
    // Durable before the raw report is marked processed.
    if fsync(fd) != 0 {
        let saved = errno
        close(fd)
        throw FileError("fsync", temporary, errno: saved)
    }
    close(fd)
    try move(temporary, to: path)
}

private func move(_ source: String, to destination: String) throws(FileError) {
    if rename(source, destination) != 0 { throw FileError("rename", source, errno: errno) }
}
