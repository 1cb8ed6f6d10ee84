import Glibc
import Logging

/// Writes one structured line per log event, in the form of seed 004's logging rules:
///
/// ```
/// [ERROR][2026-11-21T20:31:07.412Z] category=network key=error.network.timeout code=nwc/TIMEOUT layer=client disposition=default attempt=1 domain=nwc msg="nwc/TIMEOUT handled"
/// ```
///
/// The error fields come first in a fixed order (`category key code layer disposition`), then the other
/// metadata sorted by key, then the message. Values with spaces, quotes or `=` are quoted and escaped, so
/// a line always splits back into its fields.
///
/// It does not redact: put it behind ``RedactingLogHandler`` (see ``RedactingLogHandler/bootstrap(redactor:_:)``).
public struct StructuredLogHandler: LogHandler {
    /// The logger's label, written as `label=` when it is not empty.
    public let label: String
    /// Where lines go.
    public let sink: any LogLineSink
    /// The time stamp of a line; UTC ISO 8601 with milliseconds by default. Tests inject a fixed one.
    public let timestamp: @Sendable () -> String
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info

    /// The fields written first, in this order, when present.
    public static let leadingFields = ["category", "key", "code", "layer", "disposition"]

    /// Creates a handler writing to `sink` (standard error by default).
    public init(
        label: String, sink: any LogLineSink = StandardStreamSink.standardError,
        timestamp: @escaping @Sendable () -> String = StructuredLogHandler.utcTimestamp
    ) {
        self.label = label
        self.sink = sink
        self.timestamp = timestamp
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        sink.write(
            Self.format(
                level: event.level, timestamp: timestamp(), message: event.message.description, metadata: merged,
                label: label))
    }

    /// One line for an event. Public so other sinks (a file, a ring buffer) can share the format.
    public static func format(
        level: Logger.Level, timestamp: String, message: String, metadata: Logger.Metadata, label: String = ""
    ) -> String {
        var line = "["
        line.reserveCapacity(96 + message.utf8.count + metadata.count * 24)
        line += level.tag
        line += "]["
        line += timestamp
        line += "]"
        for field in leadingFields {
            if let value = metadata[field] { appendField(field, value, to: &line) }
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where !leadingFields.contains(key) {
            appendField(key, value, to: &line)
        }
        if !label.isEmpty { appendField("label", .string(label), to: &line) }
        if !message.isEmpty { appendField("msg", .string(message), to: &line) }
        return line
    }

    private static func appendField(_ key: String, _ value: Logger.MetadataValue, to line: inout String) {
        line += " "
        line += key
        line += "="
        appendQuotedIfNeeded(render(value), to: &line)
    }

    private static func render(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): "[" + values.map(render).joined(separator: ",") + "]"
        case .dictionary(let metadata):
            "{" + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\(render($0.value))" }.joined(separator: ",")
                + "}"
        }
    }

    private static func appendQuotedIfNeeded(_ text: String, to line: inout String) {
        let needsQuotes =
            text.isEmpty
            || text.utf8.contains { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x5C || $0 == 0x7F }
        guard needsQuotes else {
            line += text
            return
        }
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    line += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    line.unicodeScalars.append(scalar)
                }
            }
        }
        line += "\""
    }

    /// The current time as `2026-11-21T20:31:07.412Z`.
    @Sendable
    public static func utcTimestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = Int(now.tv_nsec / 1_000_000)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-"
            + pad(Int(parts.tm_mday), 2) + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":"
            + pad(Int(parts.tm_sec), 2) + "." + pad(millis, 3) + "Z"
    }
}

extension Logger.Level {
    /// The upper-case tag of a structured line: `ERROR`, `WARNING`, …
    public var tag: String {
        switch self {
        case .trace: "TRACE"
        case .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }
}
