/// An RFC 9457 problem details object, as ``ProblemResponder`` answers with it (`application/problem+json`) and
/// ``ProblemReader`` reads it back.
///
/// The standard members (`type`, `title`, `status`, `detail`, `instance`) and two extensions: `code`, the error's
/// identity (`domain/code`), and `traceId`, the trace the request belongs to when it is traced. Texts come from the
/// registry's catalogs in the negotiated language, never from the error's own description, so a payload cannot
/// reach the body.
#if HTTP
public struct ProblemDetails: Codable, Sendable, Hashable {
    /// A URI naming the problem type: the configuration's base followed by `domain/code`.
    public var type: String
    /// A short, human-readable summary of the problem type.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// A human-readable explanation of this occurrence.
    public var detail: String
    /// The path of the request it occurred on.
    public var instance: String
    /// The error's identity: `domain/code`.
    public var code: String
    /// The trace id of the request's span, when it has one.
    public var traceId: String?

    /// Creates problem details.
    public init(
        type: String, title: String, status: Int, detail: String, instance: String, code: String,
        traceId: String? = nil
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.code = code
        self.traceId = traceId
    }

    /// The media type of a problem details body.
    public static let mediaType = "application/problem+json"

    /// The body: the JSON `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes` (members in sorted
    /// order, `traceId` left out when nil), byte for byte, written directly: a server answers every error with one,
    /// and the encoder's cost was most of an answer's.
    public var json: [UInt8] {
        let status = String(status)
        // `{"code":"…","detail":"…","instance":"…","status":N,"title":"…",["traceId":"…",]"type":"…"}`
        var count = #"{"code":"","detail":"","instance":"","status":,"title":"","type":""}"#.utf8.count
        count += Self.escapedCount(code) + Self.escapedCount(detail) + Self.escapedCount(instance)
        count += status.utf8.count + Self.escapedCount(title) + Self.escapedCount(type)
        if let traceId { count += #","traceId":"""#.utf8.count + Self.escapedCount(traceId) }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var at = 0
            Self.put(#"{"code":""#, into: buffer, at: &at)
            Self.escape(code, into: buffer, at: &at)
            Self.put(#"","detail":""#, into: buffer, at: &at)
            Self.escape(detail, into: buffer, at: &at)
            Self.put(#"","instance":""#, into: buffer, at: &at)
            Self.escape(instance, into: buffer, at: &at)
            Self.put(#"","status":"#, into: buffer, at: &at)
            Self.escape(status, into: buffer, at: &at)
            Self.put(#","title":""#, into: buffer, at: &at)
            Self.escape(title, into: buffer, at: &at)
            if let traceId {
                Self.put(#"","traceId":""#, into: buffer, at: &at)
                Self.escape(traceId, into: buffer, at: &at)
            }
            Self.put(#"","type":""#, into: buffer, at: &at)
            Self.escape(type, into: buffer, at: &at)
            Self.put(#""}"#, into: buffer, at: &at)
            precondition(at == count, "problem details: \(at) bytes written, \(count) counted")
            initialized = at
        }
    }

    /// The bytes of `value` once escaped as ``escape(_:into:at:)`` escapes it.
    private static func escapedCount(_ value: String) -> Int {
        if let plain = value.utf8.withContiguousStorageIfAvailable(isPlain), plain { return value.utf8.count }
        var count = 0
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09, 0x08, 0x0C: count += 2
            case ..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }

    /// Whether `bytes` need no escape: most texts, copied whole.
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var special = false
        for byte in bytes {
            special = special || byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        }
        return !special
    }

    @inline(__always)
    private static func put(_ text: StaticString, into buffer: UnsafeMutableBufferPointer<UInt8>, at: inout Int) {
        let count = text.utf8CodeUnitCount
        UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[at..<at + count]).copyMemory(
            from: UnsafeRawBufferPointer(start: text.utf8Start, count: count))
        at += count
    }

    /// `value`, escaped as JSON requires (quote, backslash and control characters) and as `JSONEncoder` does it.
    private static func escape(_ value: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at: inout Int) {
        let copied = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard isPlain(bytes) else { return false }
            UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[at..<at + bytes.count])
                .copyMemory(from: UnsafeRawBufferPointer(bytes))
            at += bytes.count
            return true
        }
        if copied == true { return }
        let hex: StaticString = "0123456789abcdef"
        for byte in value.utf8 {
            var escaped: UInt8
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escaped = byte
            case 0x0A: escaped = UInt8(ascii: "n")
            case 0x0D: escaped = UInt8(ascii: "r")
            case 0x09: escaped = UInt8(ascii: "t")
            case 0x08: escaped = UInt8(ascii: "b")
            case 0x0C: escaped = UInt8(ascii: "f")
            case ..<0x20:
                put("\\u00", into: buffer, at: &at)
                buffer[at] = hex.utf8Start[Int(byte >> 4)]
                buffer[at + 1] = hex.utf8Start[Int(byte & 0xF)]
                at += 2
                continue
            default:
                buffer[at] = byte
                at += 1
                continue
            }
            buffer[at] = UInt8(ascii: "\\")
            buffer[at + 1] = escaped
            at += 2
        }
    }
}
#endif
