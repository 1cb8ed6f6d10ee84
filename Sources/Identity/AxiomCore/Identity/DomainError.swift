import AxiomCatalog
import FoundationEssentials

/// An error that arrives as data: a domain, a code, a message and metadata.
///
/// Use it for errors that come over the wire: an NWC error response (`{"error": {"code": "RATE_LIMITED",
/// "message": …}}`), a JSON-RPC error (`{"error": {"code": -32003, …}}`), a SIP cause. A numeric code is
/// kept as its decimal string and resolves through the domain's numeric aliases.
public struct DomainError: IdentifiableError, Sendable, Hashable, CustomStringConvertible {
    /// The identity, as it arrived (a numeric code is its decimal string).
    public var errorCode: ErrorCode
    /// The message the remote side sent. May hold secrets: loggers redact it.
    public var message: String
    /// Extra facts (request id, HTTP status, …).
    public var metadata: [String: String]
    /// A `Retry-After` the remote side sent.
    public var retryAfter: Duration?

    /// Creates an error from a domain and a code name.
    public init(
        domain: String, code: String, message: String = "", metadata: [String: String] = [:],
        retryAfter: Duration? = nil
    ) {
        self.errorCode = ErrorCode(domain, code)
        self.message = message
        self.metadata = metadata
        self.retryAfter = retryAfter
    }

    /// Creates an error from a domain and a numeric code (resolved through the domain's aliases).
    package init(
        domain: String, numericCode: Int, message: String = "", metadata: [String: String] = [:],
        retryAfter: Duration? = nil
    ) {
        self.init(
            domain: domain, code: String(numericCode), message: message, metadata: metadata,
            retryAfter: retryAfter)
    }

    public var description: String {
        message.isEmpty ? errorCode.description : "\(errorCode): \(message)"
    }
}

extension DomainError {
    /// Why a payload could not be read as an error response.
    public struct DecodingFailure: Error, Sendable, CustomStringConvertible {
        /// What was wrong with it.
        public let reason: String
        public var description: String { "not an error response: \(reason)" }
    }

    /// The largest payload ``decode(domain:json:)`` reads: 1 MiB. An error body is a few hundred bytes.
    package static let maximumPayloadSize = 1 << 20
    /// The longest code ``decode(domain:json:)`` accepts, in UTF-8 bytes.
    package static let maximumCodeLength = 128
    /// The longest `Retry-After` ``decode(domain:json:)`` keeps: one day. A longer one is cut to it.
    public static let maximumRetryAfter: Duration = .seconds(86_400)
    /// The metadata key under which ``decode(domain:json:)`` says why it dropped a `retry_after`.
    package static let invalidRetryAfterKey = "invalid_retry_after"

    /// Reads an error response: a JSON object with an `error` member (or the error object itself) whose
    /// `code` is a string or an integer, with an optional `message` and `retry_after` seconds.
    ///
    /// Anything a peer sends is answered: with an error, or with `DecodingFailure`, never a trap. A code must be
    /// at most `maximumCodeLength` bytes without control characters (it reaches log lines and metrics). A
    /// `retry_after` must be a finite, non-negative number of seconds (or a string of one); a longer one than
    /// ``maximumRetryAfter`` is cut to it, and an invalid one is dropped with its reason in the metadata under
    /// `invalidRetryAfterKey`, so the error keeps its identity either way.
    ///
    /// - Throws: `DecodingFailure` naming what is missing; the payload is never echoed, it may hold secrets.
    public static func decode(domain: String, json: Data) throws(DecodingFailure) -> DomainError {
        guard json.count <= maximumPayloadSize else { throw DecodingFailure(reason: "larger than 1 MiB") }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: json)
        } catch {
            throw DecodingFailure(reason: "invalid JSON")
        }
        guard case .object(let top) = value else { throw DecodingFailure(reason: "not a JSON object") }
        var body = top
        if case .object(let inner)? = top["error"] { body = inner }
        let code = try Self.code(body["code"])
        var metadata: [String: String] = [:]
        if case .string(let type)? = top["result_type"], type.utf8.count <= maximumCodeLength {
            metadata["result_type"] = type
        }
        if let id = Self.scalarText(top["id"]) { metadata["id"] = id }
        var retryAfter: Duration?
        if let value = body["retry_after"] ?? top["retry_after"] {
            switch Self.retryAfter(value) {
            case .success(let wait): retryAfter = wait
            case .failure(let failure): metadata[invalidRetryAfterKey] = failure.reason
            }
        }
        var message = ""
        if case .string(let text)? = body["message"] { message = text }
        return DomainError(domain: domain, code: code, message: message, metadata: metadata, retryAfter: retryAfter)
    }

    private static func code(_ value: JSONValue?) throws(DecodingFailure) -> String {
        switch value {
        case .string(let text)?:
            guard !text.isEmpty else { throw DecodingFailure(reason: "empty `code`") }
            guard text.utf8.count <= maximumCodeLength else {
                throw DecodingFailure(reason: "`code` longer than \(maximumCodeLength) bytes")
            }
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw DecodingFailure(reason: "`code` holds control characters")
            }
            return text
        case .integer(let integer)?: return String(integer)
        default: throw DecodingFailure(reason: "no string or integer `code`")
        }
    }

    /// A string of at most `maximumCodeLength` bytes, or an integer, as text.
    private static func scalarText(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text.utf8.count <= maximumCodeLength ? text : nil
        case .integer(let integer)?: String(integer)
        default: nil
        }
    }

    private static func retryAfter(_ value: JSONValue) -> Result<Duration, DecodingFailure> {
        let seconds: Double
        switch value {
        case .integer(let integer): seconds = Double(integer)
        case .number(let number): seconds = number
        case .string(let text):
            guard let number = Double(text) else { return .failure(DecodingFailure(reason: "not a number")) }
            seconds = number
        default: return .failure(DecodingFailure(reason: "not a number"))
        }
        guard seconds.isFinite else { return .failure(DecodingFailure(reason: "not finite")) }
        guard seconds >= 0 else { return .failure(DecodingFailure(reason: "negative")) }
        let ceiling = Double(maximumRetryAfter.components.seconds)
        // Whole milliseconds of at most a day: the conversion cannot overflow.
        return .success(.milliseconds(Int64((min(seconds, ceiling) * 1000).rounded())))
    }
}

/// A JSON value, as much of one as reading an error response needs, read by `JSONDecoder` (FoundationEssentials)
/// rather than `JSONSerialization` (Foundation, with ICU). `true` and `false` are booleans, never numbers: they are
/// neither codes nor durations. An integer is one only when it fits an `Int` exactly; any other number is a double.
private enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
