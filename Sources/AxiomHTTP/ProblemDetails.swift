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
}
#endif
