/// An RFC 9457 problem details object, as ``ProblemResponder`` answers with it (`application/problem+json`) and
/// ``ProblemReader`` reads it back.
///
/// The standard members (`type`, `title`, `status`, `detail`, `instance`) and two extensions: `code`, the error's
/// identity (`domain/code`), and `traceId`, the trace the request belongs to when it is traced. Texts come from the
/// registry's catalogs in the negotiated language, never from the error's own description, so a payload cannot
/// reach the body.
#if HTTP
import Foundation

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
        let body = Template(code: code, detail: detail, status: status, title: title, type: type)
        return [UInt8](unsafeUninitializedCapacity: body.count(instance: instance, traceId: traceId)) {
            buffer, initialized in
            initialized = body.write(instance: instance, traceId: traceId, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// The body around its two members that change from request to request (`instance` and `traceId`), escaped
    /// once: ``ProblemResponder`` keeps one for each code, language and status it answers with.
    ///
    /// `{"code":"…","detail":"…","instance":"` *instance* `","status":N,"title":"…"` [`,"traceId":"` *trace id*
    /// `"`] `,"type":"…"}`: the members in sorted order, as `JSONEncoder` writes them with `.sortedKeys`.
    struct Template: Sendable {
        let head: [UInt8]
        let middle: [UInt8]
        let tail: [UInt8]
        static let traceIdOpening = Array(#","traceId":""#.utf8)

        init(code: String, detail: String, status: Int, title: String, type: String) {
            head =
                Array(#"{"code":""#.utf8) + escaped(code) + Array(#"","detail":""#.utf8) + escaped(detail)
                + Array(#"","instance":""#.utf8)
            middle =
                Array(#"","status":"#.utf8) + Array(String(status).utf8) + Array(#","title":""#.utf8)
                + escaped(title) + [UInt8(ascii: "\"")]
            tail = Array(#","type":""#.utf8) + escaped(type) + Array(#""}"#.utf8)
        }

        /// The body's size with these members.
        func count(instance: String, traceId: String?) -> Int {
            var count = head.count + escapedCount(instance) + middle.count + tail.count
            if let traceId { count += #","traceId":"""#.utf8.count + escapedCount(traceId) }
            return count
        }

        /// Writes the body with these members at the start of `buffer` (at least ``count(instance:traceId:)``
        /// bytes); returns the bytes written.
        func write(instance: String, traceId: String?, into buffer: UnsafeMutableRawBufferPointer) -> Int {
            var at = 0
            put(head, into: buffer, at: &at)
            escape(instance, into: buffer, at: &at)
            put(middle, into: buffer, at: &at)
            if let traceId {
                put(Self.traceIdOpening, into: buffer, at: &at)
                escape(traceId, into: buffer, at: &at)
                buffer[at] = UInt8(ascii: "\"")
                at += 1
            }
            put(tail, into: buffer, at: &at)
            return at
        }

        /// The body with these members.
        func body(instance: String, traceId: String?) -> Data {
            var data = Data(count: count(instance: instance, traceId: traceId))
            let written = data.withUnsafeMutableBytes { write(instance: instance, traceId: traceId, into: $0) }
            precondition(written == data.count, "problem details: \(written) bytes written, \(data.count) counted")
            return data
        }
    }
}

/// `value`, escaped as JSON requires (quote, backslash and control characters) and as `JSONEncoder` does it.
private func escaped(_ value: String) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: escapedCount(value)) { buffer, initialized in
        initialized = 0
        escape(value, into: UnsafeMutableRawBufferPointer(buffer), at: &initialized)
    }
}

/// The bytes of `value` once escaped as `escape(_:into:at:)` escapes it.
private func escapedCount(_ value: String) -> Int {
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
private func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var special = false
    for byte in bytes { special = special || byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") }
    return !special
}

@inline(__always)
private func put(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableRawBufferPointer, at: inout Int) {
    UnsafeMutableRawBufferPointer(rebasing: buffer[at..<at + bytes.count]).copyMemory(
        from: UnsafeRawBufferPointer(bytes))
    at += bytes.count
}

@inline(__always)
private func put(_ bytes: [UInt8], into buffer: UnsafeMutableRawBufferPointer, at: inout Int) {
    bytes.withUnsafeBufferPointer { put($0, into: buffer, at: &at) }
}

/// Writes `value` escaped, as `escaped(_:)` gives it.
private func escape(_ value: String, into buffer: UnsafeMutableRawBufferPointer, at: inout Int) {
    let copied = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
        guard isPlain(bytes) else { return false }
        put(bytes, into: buffer, at: &at)
        return true
    }
    if copied == true { return }
    let hex: StaticString = "0123456789abcdef"
    for byte in value.utf8 {
        let escaped: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): escaped = byte
        case 0x0A: escaped = UInt8(ascii: "n")
        case 0x0D: escaped = UInt8(ascii: "r")
        case 0x09: escaped = UInt8(ascii: "t")
        case 0x08: escaped = UInt8(ascii: "b")
        case 0x0C: escaped = UInt8(ascii: "f")
        case ..<0x20:
            for (offset, character) in [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")]
                .enumerated()
            {
                buffer[at + offset] = character
            }
            buffer[at + 4] = hex.utf8Start[Int(byte >> 4)]
            buffer[at + 5] = hex.utf8Start[Int(byte & 0xF)]
            at += 6
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
#endif
