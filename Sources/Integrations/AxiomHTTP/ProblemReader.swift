#if HTTP
import Axiom
import Foundation
import HTTPTypes

/// A peer's error, read back from its problem details answer.
public struct PeerProblem: Sendable {
    /// The error, as an application decides it: the peer's `code` as its identity (so a code the local registry
    /// knows is decided with its registered fate), `detail` as its message, `title`, `type`, `instance`, the
    /// status and the trace id as metadata, and the answer's `Retry-After`.
    public var error: DomainError
    /// The answer's status.
    public var status: Int
    /// The peer's title, if it sent one.
    public var title: String?
    /// The peer's detail, if it sent one.
    public var detail: String?
    /// How long the peer asked to wait before trying again (`Retry-After`), at most a day.
    public var retryAfter: Duration?
    /// The trace the peer's answer belongs to (the body's `traceId`), when it sent a valid one.
    public var traceId: String?
    /// The local registry's descriptor of the peer's code, nil when no catalog here registers it.
    public var descriptor: ErrorDescriptor?

    /// The peer's identity: `domain/code`.
    public var code: ErrorCode { error.errorCode }

    /// A peer's error as a reader of another carrier (gRPC status details) reads it: `error` with the identity, the
    /// message, the metadata and the wait, and the rest as the reader found them.
    package init(
        error: DomainError, status: Int, title: String?, detail: String?, retryAfter: Duration?, traceId: String?,
        descriptor: ErrorDescriptor?
    ) {
        self.error = error
        self.status = status
        self.title = title
        self.detail = detail
        self.retryAfter = retryAfter
        self.traceId = traceId
        self.descriptor = descriptor
    }
}

/// Reads a peer's answer back as its error: the counterpart of ``ProblemResponder``, for a client of any HTTP
/// library that gives it the response head (`HTTPResponse`) and the body's bytes.
///
/// ```
///   status ≥ 400, application/problem+json, body ≤ 64 KiB, nesting ≤ 16 ──▶ PeerProblem
///        `code` "domain/code" ──▶ the error's identity (no `code`: axiom.http/<status>)
///        Retry-After: delta-seconds or HTTP-date ──▶ retryAfter (at most a day)
///        traceId ──▶ traceId
///   anything else ──▶ UnreadableAnswer (axiom.http.peer/notProblemDetails or /unreadableProblem)
/// ```
///
/// Anything a peer sends is answered, with a ``PeerProblem`` or an ``UnreadableAnswer``, never a trap, in memory
/// bounded by the largest body it reads (64 KiB) and time linear in it. The codes a peer names are looked up in the
/// registry like every other code, so the registry's bounds for codes it does not know hold however many distinct
/// codes peers send.
public struct ProblemReader: Sendable {
    /// The largest body read: 64 KiB. A problem details body is a few hundred bytes.
    package static let maximumBodySize = 64 << 10
    /// The deepest nesting of arrays and objects read. A problem details body is one object of scalars.
    package static let maximumDepth = 16
    /// The longest trace id kept, in bytes.
    @_spi(Fuzzing) public static let maximumTraceIdLength = 64
    /// The longest `title`, `type` or `instance` kept in the error's metadata, in bytes; a longer one is left out.
    package static let maximumMetadataLength = 1024
    /// The longest `Retry-After` field value read, in bytes.
    static let maximumRetryAfterLength = 64

    /// The registry the peer's codes are looked up in.
    package let registry: ErrorRegistry

    /// A reader over `registry`; registers `axiom.http.peer` (``UnreadableAnswer``) and `axiom.http`
    /// (``HTTPErrorDomain``, the identity of an answer without a `code`) in it.
    public init(registry: ErrorRegistry) {
        self.registry = registry
        // Only another source that took the framework's domain name can refuse it; the errors are then decided as
        // unknown errors, with their code all the same.
        try? UnreadableAnswer.register(in: registry)
        try? HTTPErrorDomain.register(in: registry)
    }

    /// The peer's error in `response` and `body`.
    ///
    /// - Parameters:
    ///   - response: the answer's head: its status and fields.
    ///   - body: the answer's body.
    ///   - now: the time an HTTP-date `Retry-After` is measured from.
    /// - Throws: ``UnreadableAnswer`` when the answer is not problem details (a status below 400, another content
    ///   type) or its body cannot be read (larger than 64 KiB, nested deeper than 16 levels, not
    ///   a JSON object, a member of the wrong type, a `code` that is not `domain/code`).
    public func read(_ response: HTTPResponse, body: Data, now: Date) throws(UnreadableAnswer) -> PeerProblem {
        let status = response.status.code
        let isProblem = Self.isProblemMediaType(response.headerFields[.contentType])
        guard status >= 400 else {
            throw UnreadableAnswer(
                .notProblemDetails,
                reason: isProblem ? "a problem body with a non-error status" : "not an error status",
                status: status)
        }
        guard isProblem else {
            throw UnreadableAnswer(
                .notProblemDetails, reason: "the content type is not \(ProblemDetails.mediaType)", status: status)
        }
        let object = try Self.object(body, status: status)
        let unreadable = { (reason: String) in UnreadableAnswer(.unreadableProblem, reason: reason, status: status) }

        var strings: [String: String] = [:]
        for member in ["title", "detail", "type", "instance", "traceId"] {
            guard let value = object[member], !(value is NSNull) else { continue }
            guard let text = value as? String else { throw unreadable("`\(member)` is not a string") }
            strings[member] = text
        }
        if let value = object["status"], !(value is NSNull) {
            guard let number = value as? NSNumber, !Self.isBoolean(number), value is Int else {
                throw unreadable("`status` is not an integer")
            }
        }
        let code: ErrorCode
        switch object["code"] {
        case nil, is NSNull: code = HTTPErrorDomain.code(status: status)
        case let text as String:
            guard let parsed = Self.code(text) else { throw unreadable("`code` is not domain/code") }
            code = parsed
        default: throw unreadable("`code` is not a string")
        }

        var metadata = ["status": String(status)]
        for member in ["title", "type", "instance"] {
            if let text = strings[member], text.utf8.count <= Self.maximumMetadataLength { metadata[member] = text }
        }
        let traceId = strings["traceId"].flatMap(Self.traceId)
        if let traceId { metadata["traceId"] = traceId }
        let retryAfter = Self.retryAfter(of: response, now: now, metadata: &metadata)
        let error = DomainError(
            domain: code.domain, code: code.code, message: strings["detail"] ?? "", metadata: metadata,
            retryAfter: retryAfter)
        return PeerProblem(
            error: error, status: status, title: strings["title"], detail: strings["detail"], retryAfter: retryAfter,
            traceId: traceId, descriptor: registry.descriptor(for: code))
    }

    /// The peer's error in an answer a client received, whatever the peer sent: nil for a success (a status below
    /// 400, whatever its body); problem details read as ``read(_:body:now:)`` reads them; any other error answer (a
    /// proxy's HTML page, an empty 503) as ``HTTPErrorDomain``'s code of its status, with its `Retry-After`, so a
    /// caller decides and retries every error answer by an identity.
    ///
    /// - Parameters:
    ///   - response: the answer's head: its status and fields.
    ///   - body: the answer's body; only read when the answer is problem details.
    ///   - now: the time an HTTP-date `Retry-After` is measured from.
    /// - Throws: ``UnreadableAnswer`` when the answer is problem details that cannot be read.
    public func peerProblem(in response: HTTPResponse, body: Data, now: Date) throws(UnreadableAnswer) -> PeerProblem? {
        let status = response.status.code
        guard status >= 400 else { return nil }
        if Self.isProblemMediaType(response.headerFields[.contentType]) {
            return try read(response, body: body, now: now)
        }
        let code = HTTPErrorDomain.code(status: status)
        var metadata = ["status": String(status)]
        let retryAfter = Self.retryAfter(of: response, now: now, metadata: &metadata)
        let error = DomainError(
            domain: code.domain, code: code.code, message: "", metadata: metadata, retryAfter: retryAfter)
        return PeerProblem(
            error: error, status: status, title: nil, detail: nil, retryAfter: retryAfter, traceId: nil,
            descriptor: registry.descriptor(for: code))
    }

    /// The answer's `Retry-After`, if it has one that can be read; why it cannot, in `metadata`, if not.
    private static func retryAfter(of response: HTTPResponse, now: Date, metadata: inout [String: String]) -> Duration?
    {
        guard let field = response.headerFields[.retryAfter] else { return nil }
        switch retryAfter(field, now: now) {
        case .success(let wait): return wait
        case .failure(let failure):
            metadata[DomainError.invalidRetryAfterKey] = failure.reason
            return nil
        }
    }

    // MARK: The body

    /// The body as a JSON object, within the bounds.
    private static func object(_ body: Data, status: Int) throws(UnreadableAnswer) -> [String: Any] {
        let unreadable = { (reason: String) in UnreadableAnswer(.unreadableProblem, reason: reason, status: status) }
        guard body.count <= maximumBodySize else { throw unreadable("larger than 64 KiB") }
        guard depth(of: body) <= maximumDepth else { throw unreadable("nested deeper than \(maximumDepth)") }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: body)
        } catch {
            throw unreadable("invalid JSON")
        }
        guard let object = parsed as? [String: Any] else { throw unreadable("not a JSON object") }
        return object
    }

    /// The deepest nesting of arrays and objects in `body`, read as JSON text (brackets inside strings do not
    /// count); one pass, so the parser never meets a body nested deeper than the bound.
    static func depth(of body: Data) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// `domain/code`, split at the first `/`: each part non-empty, at most `DomainError.maximumCodeLength` bytes,
    /// without control characters (they reach log lines and metrics).
    package static func code(_ text: String) -> ErrorCode? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let domain = String(text[..<slash])
        let code = String(text[text.index(after: slash)...])
        for part in [domain, code] {
            guard !part.isEmpty, part.utf8.count <= DomainError.maximumCodeLength,
                !part.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { return nil }
        }
        return ErrorCode(domain, code)
    }

    /// A trace id of at most ``maximumTraceIdLength`` letters, digits, `-` and `_`, or nil.
    package static func traceId(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maximumTraceIdLength else { return nil }
        let allowed = text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        }
        return allowed ? text : nil
    }

    /// Whether a `Content-Type` value names `application/problem+json`, with any parameters.
    package static func isProblemMediaType(_ value: String?) -> Bool {
        guard let value else { return false }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased() == ProblemDetails.mediaType
    }

    /// JSON `true` and `false` arrive as numbers; they are not statuses.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        number.objCType.pointee == CChar(bitPattern: UInt8(ascii: "c"))
    }

    // MARK: Retry-After

    /// Why a `Retry-After` was not kept.
    struct InvalidRetryAfter: Error {
        let reason: String
    }

    /// A `Retry-After` field value (RFC 9110 §10.2.3): delta-seconds, or an HTTP-date measured from `now` (a date
    /// in the past is no wait). Cut to `DomainError.maximumRetryAfter`.
    static func retryAfter(_ field: String, now: Date) -> Result<Duration, InvalidRetryAfter> {
        guard field.utf8.count <= maximumRetryAfterLength else { return .failure(.init(reason: "too long")) }
        let value = field.trimmingCharacters(in: .whitespaces)
        let ceiling = DomainError.maximumRetryAfter.components.seconds
        if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // More digits than a day's seconds have is more than a day.
            let seconds = value.utf8.count > 9 ? ceiling : min(Int64(value)!, ceiling)
            return .success(.seconds(seconds))
        }
        guard let date = HTTPDate.parse(value, now: now) else { return .failure(.init(reason: "not a number or date")) }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .success(.zero) }
        return .success(.seconds(Int64(min(seconds.rounded(.up), Double(ceiling)))))
    }
}

/// The three forms of an HTTP-date (RFC 9110 §5.6.7), all in GMT: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The date, or nil; `now` places a two-digit year (one more than 50 years ahead is the century before).
    static func parse(_ text: String, now: Date) -> Date? {
        let tokens = text.split(separator: " ").map { $0.lowercased() }
        let day: Int?
        let month: Int?
        let year: Int?
        let time: String
        switch tokens.count {
        case 6:  // IMF-fixdate
            guard days.contains(where: { tokens[0] == $0 + "," }), tokens[5] == "gmt", tokens[1].count == 2,
                tokens[3].count == 4
            else { return nil }
            (day, month, year, time) = (
                number(tokens[1]), months.firstIndex(of: tokens[2]), number(tokens[3]), tokens[4]
            )
        case 4:  // RFC 850
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard longDays.contains(where: { tokens[0] == $0 + "," }), tokens[3] == "gmt", parts.count == 3,
                parts[0].count == 2, parts[2].count == 2, let short = number(parts[2])
            else { return nil }
            let current =
                Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: now).year
                ?? 1970
            var full = current / 100 * 100 + short
            if full > current + 50 { full -= 100 }
            (day, month, year, time) = (number(parts[0]), months.firstIndex(of: parts[1]), full, tokens[2])
        case 5:  // asctime
            guard days.contains(tokens[0]), (1...2).contains(tokens[2].count), tokens[4].count == 4 else { return nil }
            (day, month, year, time) = (
                number(tokens[2]), months.firstIndex(of: tokens[1]), number(tokens[4]), tokens[3]
            )
        default: return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let day, let month, let year, clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
            (1...daysInMonth(month + 1, of: year)).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = CivilDate.days(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// A short run of ASCII digits as a number.
    static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 4,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// How many days `month` (1 for January) of `year` has in the proleptic Gregorian calendar: a 31 February is
    /// no date, and a 29 February only in a leap year.
    static func daysInMonth(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
#endif
