import Foundation

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
    public init(
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

    /// Reads an error response: a JSON object with an `error` member (or the error object itself) whose
    /// `code` is a string or an integer, with an optional `message`, `data`, and `retry_after` seconds.
    ///
    /// - Throws: `DecodingFailure` naming what is missing; the payload is never echoed, it may hold secrets.
    public static func decode(domain: String, json: Data) throws(DecodingFailure) -> DomainError {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw DecodingFailure(reason: "invalid JSON")
        }
        guard let top = object as? [String: Any] else { throw DecodingFailure(reason: "not a JSON object") }
        let body = (top["error"] as? [String: Any]) ?? top
        let code: String
        if let text = body["code"] as? String, !text.isEmpty {
            code = text
        } else if let number = body["code"] as? Int {
            code = String(number)
        } else {
            throw DecodingFailure(reason: "no string or integer `code`")
        }
        var metadata: [String: String] = [:]
        if let type = top["result_type"] as? String { metadata["result_type"] = type }
        if let id = top["id"] { metadata["id"] = "\(id)" }
        var retryAfter: Duration?
        if let seconds = (body["retry_after"] ?? top["retry_after"]) as? NSNumber {
            retryAfter = .milliseconds(Int64(seconds.doubleValue * 1000))
        }
        return DomainError(
            domain: domain, code: code, message: body["message"] as? String ?? "", metadata: metadata,
            retryAfter: retryAfter)
    }
}
