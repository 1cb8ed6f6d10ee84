import Glibc
import Logging

/// Writes one structured line per log event: level, timestamp, then the error's fields in a fixed order:
///
/// ```
/// [ERROR][2026-11-21T20:31:07.412Z] category=network key=error.network.timeout code=nwc/TIMEOUT layer=client disposition=handle attempt=1 domain=nwc msg="nwc/TIMEOUT handled"
/// ```
///
/// The error fields come first in a fixed order (`category key code layer disposition`), then the other
/// metadata sorted by key, then the message. Values with spaces, quotes or `=` are quoted and escaped, so
/// a line always splits back into its fields.
///
/// It does not redact: put it behind ``RedactingLogHandler`` (see ``RedactingLogHandler/bootstrap(redactor:metadataProvider:_:)``).
public struct StructuredLogHandler: LogHandler {
    /// The logger's label, written as `label=` when it is not empty.
    package let label: String
    /// Where lines go.
    package let sink: @Sendable (String) -> Void
    /// The time stamp of a line; UTC ISO 8601 with milliseconds by default. Tests inject a fixed one.
    package let timestamp: @Sendable () -> String
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info

    /// Writes a line and its line break to standard error, in one `write(2)` unless the kernel takes it in parts:
    /// the default sink.
    @usableFromInline package static let standardError: @Sendable (String) -> Void = {
        writeAll(STDERR_FILENO, $0 + "\n")
    }

    /// The fields written first, in this order, when present.
    package static let leadingFields = ["category", "key", "code", "layer", "disposition"]

    /// Creates a handler that hands each line, without its line break, to `sink`; by default it writes the line to
    /// standard error, one `write(2)` per line, unbuffered, so lines of concurrent loggers do not interleave and a line
    /// written just before a crash is not lost in a buffer.
    public init(
        label: String, sink: @escaping @Sendable (String) -> Void = StructuredLogHandler.standardError,
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
        let merged = RedactingLogHandler.merge(metadata, metadataProvider?.get(), event.metadata)
        sink(
            Self.format(
                level: event.level, timestamp: timestamp(), message: event.message.description, metadata: merged,
                label: label))
    }

    /// One line for an event.
    package static func format(
        level: Logger.Level, timestamp: String, message: String, metadata: Logger.Metadata, label: String = ""
    ) -> String {
        // Built as bytes and decoded once: appending to a String piece by piece cost more than the rest.
        var line = LineBuilder()
        line.bytes.reserveCapacity(128 + message.utf8.count + metadata.count * 32)
        line.byte(0x5B)  // [
        line.raw(level.tag)
        line.raw("][")
        line.raw(timestamp)
        line.byte(0x5D)  // ]
        for field in leadingFields {
            if let value = metadata[field] { line.field(field, value) }
        }
        // Byte order, not Unicode collation: keys are ASCII and this runs on every line.
        let rest = metadata.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (key, value) in rest where !leadingFields.contains(key) {
            line.field(key, value)
        }
        if !label.isEmpty { line.field("label", .string(label)) }
        if !message.isEmpty { line.field("msg", .string(message)) }
        return String(decoding: line.bytes, as: UTF8.self)
    }

    /// The current time as `2026-11-21T20:31:07.412Z`.
    @Sendable
    @usableFromInline package static func utcTimestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var line = LineBuilder()
        line.digits(Int(parts.tm_year) + 1900, 4)
        line.byte(0x2D)
        line.digits(Int(parts.tm_mon) + 1, 2)
        line.byte(0x2D)
        line.digits(Int(parts.tm_mday), 2)
        line.byte(0x54)  // T
        line.digits(Int(parts.tm_hour), 2)
        line.byte(0x3A)
        line.digits(Int(parts.tm_min), 2)
        line.byte(0x3A)
        line.digits(Int(parts.tm_sec), 2)
        line.byte(0x2E)
        line.digits(Int(now.tv_nsec / 1_000_000), 3)
        line.byte(0x5A)  // Z
        return String(decoding: line.bytes, as: UTF8.self)
    }
}

/// The bytes of one line.
private struct LineBuilder {
    var bytes: [UInt8] = []

    mutating func byte(_ byte: UInt8) { bytes.append(byte) }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func digits(_ value: Int, _ width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var value = value
        while divisor > 0 {
            bytes.append(0x30 + UInt8(value / divisor % 10))
            value %= divisor
            divisor /= 10
        }
    }

    mutating func field(_ key: String, _ value: Logger.MetadataValue) {
        bytes.append(0x20)
        raw(key)
        bytes.append(0x3D)  // =
        switch value {
        case .string(let text): quotedIfNeeded(text)
        case .stringConvertible(let convertible): quotedIfNeeded(convertible.description)
        case .array, .dictionary: quotedIfNeeded(Self.render(value))
        }
    }

    static func render(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): "[" + values.map(render).joined(separator: ",") + "]"
        case .dictionary(let metadata):
            "{"
                + metadata.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .map { "\($0.key)=\(render($0.value))" }.joined(separator: ",") + "}"
        }
    }

    /// Values with spaces, quotes, `=`, backslashes or control characters are quoted and escaped, so a
    /// line always splits back into its fields.
    mutating func quotedIfNeeded(_ text: String) {
        var text = text
        text.withUTF8 { input in
            let needsQuotes =
                input.isEmpty || input.contains { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x5C || $0 == 0x7F }
            guard needsQuotes else {
                bytes.append(contentsOf: input)
                return
            }
            bytes.append(0x22)
            for byte in input {
                switch byte {
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])  // \"
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])  // \\
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])  // \n
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])  // \r
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])  // \t
                case 0..<0x20, 0x7F:
                    bytes.append(contentsOf: Array("\\u{\(String(byte, radix: 16))}".utf8))
                default: bytes.append(byte)
                }
            }
            bytes.append(0x22)
        }
    }
}

extension Logger.Level {
    /// The upper-case tag of a structured line: `ERROR`, `WARNING`, …
    package var tag: String {
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
