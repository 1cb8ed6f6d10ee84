import AxiomCore

/// `axiom crash-reports group --html FILE`: the groups as one page of HTML, for a person who would rather look than
/// read. Self-contained (no script, no file beside it): a summary, the table of `axiom crash-reports group`, and
/// under each group a timeline of its reports per day across the days all the reports span.
struct CrashGroupsPage {
    let summary: CrashGroupsSummary
    let since: String?

    /// The most bars a timeline has; a longer span puts several days in a bar.
    static let maximumBars = 120

    var html: String {
        let days = summary.groups.flatMap { $0.reports.map { Self.day($0.timestamp) } }.compactMap { $0 }
        let first = days.min() ?? 0
        let last = days.max() ?? 0
        let daysPerBar = max(1, (last - first + 1 + Self.maximumBars - 1) / Self.maximumBars)
        let bars = (last - first) / daysPerBar + 1
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>Crash groups</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1d1d1f; }
            table { border-collapse: collapse; width: 100%; }
            th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #ddd; vertical-align: top; }
            td.number { text-align: right; font-variant-numeric: tabular-nums; }
            td.time { white-space: nowrap; }
            .range { color: #666; font-size: 12px; margin-left: 8px; vertical-align: top; }
            code { font: 12px ui-monospace, monospace; }
            tr.timeline td { border-bottom: 2px solid #bbb; }
            svg rect { fill: #c0392b; }
            .provisional { color: #8e44ad; }
            </style>
            </head>
            <body>
            <h1>Crash groups</h1>

            """
        page += "<p id=\"summary\">\(summary.reportCount) reports in \(summary.groups.count) groups, "
        page += "\(summary.hostCount) hosts, \(summary.buildCount) builds"
        if let since { page += ", since \(Self.escape(since))" }
        if !summary.skipped.isEmpty { page += "; \(summary.skipped.count) files skipped" }
        page += ".</p>\n"
        for (directory, count) in summary.pending {
            page += "<p>\(Self.escape(directory)): \(count) pending, not grouped.</p>\n"
        }
        page += "<table id=\"groups\">\n<tr><th>Count</th><th>Hosts</th><th>Builds</th><th>First seen</th>"
        page += "<th>Last seen</th><th>Fingerprint</th><th>Crash</th><th>Example</th></tr>\n"
        for group in summary.groups {
            page += "<tr class=\"group\" data-fingerprint=\"\(group.fingerprint)\">"
            page += "<td class=\"number count\">\(group.count)</td>"
            page += "<td class=\"number hosts\">\(group.hosts.count)</td>"
            page += "<td class=\"number builds\">\(group.builds.count)</td>"
            page += "<td class=\"time\">\(CrashGroupsSummary.short(group.firstSeen))</td>"
            page += "<td class=\"time\">\(CrashGroupsSummary.short(group.lastSeen))</td>"
            page += "<td><code\(group.isProvisional ? " class=\"provisional\" title=\"provisional\"" : "")>"
            page += "\(group.fingerprint)</code></td>"
            page += "<td>\(Self.escape(group.kind)) in <code>\(Self.escape(group.frame))</code><br>"
            page += "\(Self.escape(group.summary))</td>"
            page += "<td><code>\(Self.escape(group.example?.path ?? ""))</code></td></tr>\n"
            var counts = [Int](repeating: 0, count: bars)
            for report in group.reports {
                if let day = Self.day(report.timestamp) { counts[(day - first) / daysPerBar] += 1 }
            }
            page += "<tr class=\"timeline\"><td colspan=\"8\">"
            page += Self.timeline(counts, firstDay: first, daysPerBar: daysPerBar)
            page += "<span class=\"range\">\(Self.date(ofDay: first)) to \(Self.date(ofDay: last)), "
            page += daysPerBar > 1 ? "\(daysPerBar) days a bar" : "a day a bar"
            page += "</span></td></tr>\n"
        }
        page += "</table>\n</body>\n</html>\n"
        return page
    }

    /// Bars of `counts`, as tall as the largest count allows in 40 pixels, each titled with its day and count.
    static func timeline(_ counts: [Int], firstDay: Int, daysPerBar: Int) -> String {
        let tallest = max(1, counts.max() ?? 1)
        let width = 6
        var svg = "<svg width=\"\(counts.count * width)\" height=\"40\" role=\"img\" aria-label=\"reports per day\">"
        for (index, count) in counts.enumerated() where count > 0 {
            let height = max(2, count * 40 / tallest)
            svg += "<rect x=\"\(index * width)\" y=\"\(40 - height)\" width=\"\(width - 1)\" height=\"\(height)\">"
            svg += "<title>\(date(ofDay: firstDay + index * daysPerBar)): \(count)</title></rect>"
        }
        return svg + "</svg>"
    }

    /// The days since 1970-01-01 of a timestamp's date (`YYYY-MM-DD…`), or nil when it does not start with one.
    static func day(_ timestamp: String) -> Int? {
        let parts = timestamp.prefix(10).split(separator: "-")
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return CivilDate.days(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD` of a day since 1970-01-01.
    static func date(ofDay days: Int) -> String {
        let (year, month, day) = CivilDate.date(ofDay: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    /// `text` with HTML's special characters escaped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
