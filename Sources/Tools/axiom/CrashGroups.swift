import ArgumentParser
import AxiomCore
import AxiomCrash
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `axiom crash-reports group DIR... [--json] [--since WHEN] [--html FILE]`: the crash reports of many machines,
/// one row per bug.
struct CrashGroups: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Group the processed crash reports of many machines by fingerprint: one row per bug.",
        discussion: """
            Each DIR is one machine's crash directory (the one given to CrashReporter.install(directory:)), named \
            after the machine: its name is the host. The JSON reports in DIR/processed (and in DIR itself, for \
            reports collected elsewhere) are read; pending raw reports are not symbolicated here: run \
            `axiom crash-reports --dir DIR` on them first (they are counted). Reports with one fingerprint are one \
            bug: each row gives how many reports it has, when it was first and last seen, on how many hosts and \
            builds (by the executable's build-id), the frame it crashed in and the newest report as an example. \
            Groups with most reports come first. A file that is not a crash report with a fingerprint is skipped \
            and named on standard error. Progress goes to standard error when it is a terminal.
            """
    )

    @Argument(help: "Crash directories, one per machine.")
    var directories: [String]

    @Flag(help: "Print one JSON object: the groups, the reports skipped and those pending.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Only reports from this moment on: an ISO 8601 date or time (2026-11-01, 2026-11-01T12:00:00Z), or a "
                + "span back from now (90m, 36h, 7d).",
            valueName: "when"))
    var since: String?

    @Option(
        help: ArgumentHelp("Also write the groups as a page of HTML, with a timeline per group.", valueName: "file"))
    var html: String?

    func validate() throws {
        if directories.isEmpty { throw ValidationError("Name at least one crash directory.") }
        if let since, Self.cutoff(since, now: time(nil)) == nil {
            throw ValidationError("--since \(since) is neither an ISO 8601 date or time nor a span like 7d.")
        }
    }

    func run() async throws {
        let cutoff = since.flatMap { Self.cutoff($0, now: time(nil)) }
        var files: [(path: String, host: String)] = []
        var pending: [(directory: String, count: Int)] = []
        for directory in directories {
            guard let top = listDirectory(directory) else {
                printError("axiom: no crash report directory at \(directory)")
                throw ExitCode(1)
            }
            let host = Self.hostName(of: directory)
            let processed = directory + "/processed"
            for name in (listDirectory(processed) ?? []).sorted() where name.hasSuffix(".json") {
                files.append((processed + "/" + name, host))
            }
            for name in top.sorted() where name.hasSuffix(".json") { files.append((directory + "/" + name, host)) }
            let waiting = top.filter { $0.hasSuffix(".axcrash") }.count
            if waiting > 0 { pending.append((directory, waiting)) }
        }

        let progress = Progress(total: files.count)
        var reports: [GroupedReport] = []
        var skipped: [UngroupableReport] = []
        reports.reserveCapacity(files.count)
        for (index, file) in files.enumerated() {
            progress.show(index)
            do {
                let report = try CrashGrouping.read(path: file.path, host: file.host)
                if let cutoff, report.timestamp < cutoff { continue }
                reports.append(report)
            } catch {
                skipped.append(error)
            }
        }
        progress.finish()

        let groups = CrashGrouping.group(reports)
        let summary = CrashGroupsSummary(groups: groups, reportCount: reports.count, skipped: skipped, pending: pending)
        if let html {
            guard writeFile(html, CrashGroupsPage(summary: summary, since: since).html) else {
                printError("axiom: cannot write \(html): \(errnoText())")
                throw ExitCode(1)
            }
        }
        if json {
            try printJSON(summary)
        } else {
            for refusal in skipped { printError("axiom: skipped \(refusal)") }
            print(summary.text, terminator: "")
        }
    }

    /// The host a crash directory stands for: its last path component.
    static func hostName(of directory: String) -> String {
        let trimmed = directory.reversed().drop { $0 == "/" }.reversed()
        return trimmed.split(separator: "/").last.map(String.init) ?? directory
    }

    /// The earliest timestamp `since` lets through, as reports write theirs (ISO 8601 UTC), or nil when it is
    /// neither an ISO 8601 date or time nor a span such as `7d`.
    static func cutoff(_ since: String, now: time_t) -> String? {
        if let unit = since.last, "mhd".contains(unit), let count = Int(since.dropLast()), count >= 0 {
            let seconds = count * (unit == "m" ? 60 : unit == "h" ? 3_600 : 86_400)
            var moment = now - time_t(seconds)
            var parts = tm()
            guard gmtime_r(&moment, &parts) != nil else { return nil }
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
                + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        }
        // An ISO date, or a date and time: compared as text, which orders ISO 8601 UTC times.
        let bytes = Array(since.utf8)
        let digit = { (index: Int) in bytes.indices.contains(index) && (48...57).contains(bytes[index]) }
        let isDate =
            bytes.count >= 10 && (0..<4).allSatisfy(digit) && bytes[4] == UInt8(ascii: "-") && digit(5) && digit(6)
            && bytes[7] == UInt8(ascii: "-") && digit(8) && digit(9)
        guard isDate, bytes.count == 10 || bytes[10] == UInt8(ascii: "T") else { return nil }
        return since.hasSuffix("Z") ? String(since.dropLast()) : since
    }
}

/// What `axiom crash-reports group` found, in the shapes it prints.
struct CrashGroupsSummary: Encodable {
    let groups: [CrashGroup]
    let reportCount: Int
    let skipped: [UngroupableReport]
    let pending: [(directory: String, count: Int)]

    /// How many hosts and builds all the groups span.
    var hostCount: Int { Set(groups.flatMap { $0.reports.map(\.host) }).count }
    var buildCount: Int { Set(groups.flatMap { $0.reports.map(\.build) }).count }

    enum CodingKeys: String, CodingKey { case reports, groups, skipped, pending }

    struct Group: Encodable {
        struct Tally: Encodable {
            let name: String
            let count: Int
        }
        let fingerprint: String
        let version: Int
        let provisional: Bool
        let kind: String
        let frame: String
        let summary: String
        let count: Int
        let firstSeen: String
        let lastSeen: String
        let hosts: [Tally]
        let builds: [Tally]
        let example: String
    }

    struct Skipped: Encodable {
        let path: String
        let reason: String
    }

    struct Pending: Encodable {
        let directory: String
        let count: Int
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reportCount, forKey: .reports)
        try container.encode(
            groups.map { group in
                Group(
                    fingerprint: group.fingerprint, version: group.fingerprintVersion, provisional: group.isProvisional,
                    kind: group.kind, frame: group.frame, summary: group.summary, count: group.count,
                    firstSeen: group.firstSeen, lastSeen: group.lastSeen,
                    hosts: group.hosts.map { Group.Tally(name: $0.name, count: $0.count) },
                    builds: group.builds.map { Group.Tally(name: $0.name, count: $0.count) },
                    example: group.example?.path ?? "")
            }, forKey: .groups)
        try container.encode(skipped.map { Skipped(path: $0.path, reason: $0.reason) }, forKey: .skipped)
        try container.encode(pending.map { Pending(directory: $0.directory, count: $0.count) }, forKey: .pending)
    }

    /// A timestamp to the second: `2026-11-02T03:04:05Z`.
    static func short(_ timestamp: String) -> String { String(timestamp.prefix(19)) + "Z" }

    /// The table: one row per group.
    var text: String {
        let noun = reportCount == 1 ? "report" : "reports"
        var lines = [
            "\(reportCount) \(noun) in \(groups.count) \(groups.count == 1 ? "group" : "groups") "
                + "(\(hostCount) hosts, \(buildCount) builds)"
                + (skipped.isEmpty ? "" : "; \(skipped.count) files skipped")
        ]
        for (directory, count) in pending {
            lines.append("\(directory): \(count) pending, not grouped (run axiom crash-reports --dir \(directory))")
        }
        guard !groups.isEmpty else { return lines.joined(separator: "\n") + "\n" }
        let header = ["COUNT", "HOSTS", "BUILDS", "FIRST SEEN", "LAST SEEN", "FINGERPRINT", "CRASH", "EXAMPLE"]
        let rows = groups.map { group in
            [
                String(group.count), String(group.hosts.count), String(group.builds.count), Self.short(group.firstSeen),
                Self.short(group.lastSeen), group.fingerprint + (group.isProvisional ? "*" : ""),
                "\(group.kind) in \(group.frame)", group.example?.path ?? "",
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        lines.append("")
        for row in [header] + rows {
            let cells = row.indices.map { column in
                let cell = row[column]
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                // Numbers right-aligned, text left-aligned; the last column unpadded.
                if column < 3 { return padding + cell }
                return column == row.count - 1 ? cell : cell + padding
            }
            lines.append(cells.joined(separator: "  "))
        }
        if groups.contains(where: \.isProvisional) {
            lines.append("")
            lines.append("* provisional: made without debug info, it groups the reports of one build only")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Shows how far reading has gone on standard error, when standard error is a terminal; says nothing otherwise.
struct Progress {
    let total: Int
    let isTerminal = isatty(2) == 1

    func show(_ done: Int) {
        guard isTerminal, done % 100 == 0 else { return }
        printError("\raxiom: read \(done) of \(total) reports", newline: false)
    }

    func finish() {
        guard isTerminal else { return }
        printError("\r\u{1B}[K", newline: false)
    }
}

/// Writes `text` to a new file at `path` (replacing one there); false (errno set) when it cannot.
func writeFile(_ path: String, _ text: String) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return writeAll(descriptor, text)
}

/// The system's text for the current errno.
func errnoText() -> String { String(cString: strerror(errno)) }
