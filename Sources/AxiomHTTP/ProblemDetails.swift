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
        var out: [UInt8] = []
        out.reserveCapacity(
            96 + code.utf8.count + detail.utf8.count + instance.utf8.count + title.utf8.count + type.utf8.count
                + (traceId?.utf8.count ?? 0))
        out.append(UInt8(ascii: "{"))
        Self.member("code", code, into: &out)
        out.append(UInt8(ascii: ","))
        Self.member("detail", detail, into: &out)
        out.append(UInt8(ascii: ","))
        Self.member("instance", instance, into: &out)
        out.append(contentsOf: #","status":"#.utf8)
        out.append(contentsOf: String(status).utf8)
        out.append(UInt8(ascii: ","))
        Self.member("title", title, into: &out)
        if let traceId {
            out.append(UInt8(ascii: ","))
            Self.member("traceId", traceId, into: &out)
        }
        out.append(UInt8(ascii: ","))
        Self.member("type", type, into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `"name":"value"`, the value escaped as JSON requires (quote, backslash and control characters).
    private static func member(_ name: StaticString, _ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(contentsOf: #"":""#.utf8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
#endif
