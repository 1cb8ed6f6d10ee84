import AxiomCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One crash report as grouping reads it from its JSON form: which bug (its fingerprint), where (the host and the
/// build), when, and what the crash looked like.
package struct GroupedReport: Sendable, Hashable {
    /// The JSON report's path.
    package var path: String
    /// The machine it came from: the name of the crash folder it was found in.
    package var host: String
    /// When it crashed, as the report writes it (ISO 8601 UTC, so that text order is time order).
    package var timestamp: String
    /// The fingerprint's value: 16 hexadecimal digits.
    package var fingerprint: String
    /// The version of the algorithm that made it.
    package var fingerprintVersion: Int
    /// Whether the fingerprint was made without some frame's debug info.
    package var isProvisional: Bool
    /// The crash's kind: `fatalError`, or the signal's name.
    package var kind: String
    /// The innermost frame the fingerprint was made of: `module function`, `module +0xoffset` (provisional), or
    /// `(no frame)`.
    package var frame: String
    /// The crashed executable's build-id (the first image's), or `(unknown)` when it has none.
    package var build: String
    /// What went wrong, as the report says it (its first line).
    package var summary: String
}

/// Why a file could not be read as a crash report for grouping. It never echoes the file's content.
package struct UngroupableReport: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    package var path: String
    /// What was wrong with it.
    package var reason: String

    /// The file at `path`, refused for `reason`.
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    package var description: String { "\(path): \(reason)" }
}

/// The reports of one fingerprint: how many, where, when, and one to look at.
package struct CrashGroup: Sendable, Hashable {
    /// The fingerprint's value.
    package var fingerprint: String
    /// The version of the algorithm that made it.
    package var fingerprintVersion: Int
    /// Whether every report of the group has a provisional fingerprint (one build's, without debug info).
    package var isProvisional: Bool
    /// The crash's kind.
    package var kind: String
    /// The innermost frame of the fingerprint.
    package var frame: String
    /// The newest report's summary.
    package var summary: String
    /// Its reports, oldest first.
    package var reports: [GroupedReport]

    /// How many reports it has.
    package var count: Int { reports.count }
    /// Its oldest report's timestamp.
    package var firstSeen: String { reports.first?.timestamp ?? "" }
    /// Its newest report's timestamp.
    package var lastSeen: String { reports.last?.timestamp ?? "" }
    /// The newest report, the one to look at.
    package var example: GroupedReport? { reports.last }

    /// Each host with its number of reports, most first (ties by name).
    package var hosts: [(name: String, count: Int)] { Self.tally(reports.map(\.host)) }
    /// Each build-id with its number of reports, most first (ties by build-id).
    package var builds: [(name: String, count: Int)] { Self.tally(reports.map(\.build)) }

    private static func tally(_ names: [String]) -> [(name: String, count: Int)] {
        var counts: [String: Int] = [:]
        for name in names { counts[name, default: 0] += 1 }
        return counts.map { (name: $0.key, count: $0.value) }.sorted { ($0.count, $1.name) > ($1.count, $0.name) }
    }
}

/// Reads crash reports' JSON for grouping, and groups them by fingerprint.
package enum CrashGrouping {
    /// The largest JSON report read: 64 MiB. A report of 64 threads of 256 frames and 4,096 images is a few MiB.
    package static let maximumReportSize = 64 << 20

    /// Reads the JSON report at `path`, found in the crash folder of `host`. The file is sized before it is read: one
    /// over ``maximumReportSize`` is refused unread.
    ///
    /// - Throws: `UngroupableReport` when the file cannot be read, or as ``read(_:path:host:)`` does.
    package static func read(path: String, host: String) throws(UngroupableReport) -> GroupedReport {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(path, limit: maximumReportSize)
        } catch {
            switch error {
            case .unreadable(let errno):
                throw UngroupableReport(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))")
            case .tooLarge: throw UngroupableReport(path: path, reason: "larger than \(maximumReportSize >> 20) MiB")
            }
        }
        return try read(bytes, path: path, host: host)
    }

    /// Reads the JSON report `bytes` found at `path` in the crash folder of `host`.
    ///
    /// - Throws: `UngroupableReport` when the bytes are not a JSON crash report, or one written before reports had
    ///   a fingerprint (processed by an Axiom older than 1.0).
    package static func read(_ bytes: [UInt8], path: String, host: String) throws(UngroupableReport) -> GroupedReport {
        guard bytes.count <= maximumReportSize else {
            throw UngroupableReport(path: path, reason: "larger than \(maximumReportSize >> 20) MiB")
        }
        let document: ReportDocument
        do {
            document = try JSONDecoder().decode(ReportDocument.self, from: Data(bytes))
        } catch {
            throw UngroupableReport(path: path, reason: "not a JSON crash report (\(Self.describe(error)))")
        }
        guard document.kind == "crashReport" else {
            throw UngroupableReport(path: path, reason: "not a crash report (kind \(document.kind))")
        }
        guard let fingerprint = document.fingerprint else {
            throw UngroupableReport(path: path, reason: "no fingerprint (processed before reports had one)")
        }
        guard fingerprint.value.utf8.count == 16, fingerprint.value.utf8.allSatisfy(Self.isLowercaseHexDigit) else {
            throw UngroupableReport(path: path, reason: "a fingerprint value that is not 16 hexadecimal digits")
        }
        let frame = fingerprint.frames.first.map(\.text) ?? "(no frame)"
        let build = document.images.first?.buildId.flatMap { $0.isEmpty ? nil : $0 } ?? "(unknown)"
        let summary = document.description.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        return GroupedReport(
            path: path, host: host, timestamp: document.timestamp, fingerprint: fingerprint.value,
            fingerprintVersion: fingerprint.version, isProvisional: fingerprint.provisional, kind: fingerprint.kind,
            frame: frame, build: build, summary: summary)
    }

    /// The groups of `reports`, those with most reports first (ties: the most recently seen first), each
    /// group's reports oldest first. Reports of two versions of the fingerprint are never in one group.
    package static func group(_ reports: [GroupedReport]) -> [CrashGroup] {
        var byFingerprint: [String: [GroupedReport]] = [:]
        for report in reports {
            byFingerprint["\(report.fingerprintVersion)/\(report.fingerprint)", default: []].append(report)
        }
        return byFingerprint.values.map { members in
            let sorted = members.sorted { ($0.timestamp, $0.path) < ($1.timestamp, $1.path) }
            let newest = sorted[sorted.count - 1]
            return CrashGroup(
                fingerprint: newest.fingerprint, fingerprintVersion: newest.fingerprintVersion,
                isProvisional: sorted.allSatisfy(\.isProvisional), kind: newest.kind, frame: newest.frame,
                summary: newest.summary, reports: sorted)
        }
        .sorted { ($0.count, $0.lastSeen, $1.fingerprint) > ($1.count, $1.lastSeen, $0.fingerprint) }
    }

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// What a decoding error says, without the values it may quote.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable" }
        switch error {
        case .keyNotFound(let key, _): return "no `\(key.stringValue)`"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "`\(context.codingPath.map(\.stringValue).joined(separator: "."))` of another type"
        case .dataCorrupted: return "invalid JSON"
        @unknown default: return "unreadable"
        }
    }

    /// The members of the JSON report grouping reads; the others are skipped.
    private struct ReportDocument: Decodable {
        var kind: String
        var timestamp: String
        var description: String
        var fingerprint: Fingerprint?
        var images: [Image]

        struct Fingerprint: Decodable {
            var value: String
            var version: Int
            var provisional: Bool
            var kind: String
            var frames: [Frame]
        }

        struct Frame: Decodable {
            var module: String
            var function: String?
            var functionStart: String?
            var imageOffset: String?

            var text: String {
                if let function { return "\(module) \(function)" }
                if let start = functionStart ?? imageOffset { return "\(module) +\(start)" }
                return module
            }
        }

        struct Image: Decodable {
            var buildId: String?
        }
    }
}

/// Grouping's reader on any bytes, for the fuzz target (`Tests/Fuzz/CrashGroups`): not part of the API. A crash
/// folder gathered from many machines is outside data.
@_spi(Fuzzing) public enum CrashGroupingFuzzing {
    /// Reads `bytes` as a JSON report and, when they are one, groups it with a copy of itself from another host.
    /// Returns whether they were a report; a refusal has a reason and never the bytes; no input traps.
    @_spi(Fuzzing) public static func exercise(_ bytes: [UInt8]) -> Bool {
        do {
            let report = try CrashGrouping.read(bytes, path: "fuzz.json", host: "a")
            var other = report
            other.host = "b"
            let groups = CrashGrouping.group([report, other])
            precondition(groups.count == 1 && groups[0].count == 2 && groups[0].hosts.count == 2, "a report lost")
            precondition(report.fingerprint.utf8.count == 16, "a fingerprint of another length")
            return true
        } catch {
            precondition(!error.reason.isEmpty && error.path == "fuzz.json", "a refusal without a reason")
            return false
        }
    }
}
