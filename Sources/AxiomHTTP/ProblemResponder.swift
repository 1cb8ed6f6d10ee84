#if HTTP
import Axiom
import Foundation
@_exported import HTTPTypes

/// The answer for an error: the response head and body a server adapter sends, and the code it details.
public struct ProblemAnswer: Sendable {
    /// Status and header fields: `Content-Type: application/problem+json`, `Vary: Accept-Language`,
    /// `Content-Language`, and `Retry-After` when there is a wait.
    public var response: HTTPResponse
    /// The problem details, encoded as JSON.
    public var body: Data
    /// What the body says.
    public var problem: ProblemDetails
    /// The error's own code, for the log, the span and the metrics; the body names `axiom/unknownError` instead
    /// when no catalog registers it.
    public var code: ErrorCode
}

/// Turns an error into an RFC 9457 problem details answer, for any server: what a server adapter (such as
/// `ProblemDetailsMiddleware` for Hummingbird) sends once its pipeline has decided the error.
///
/// The status comes from the configuration (an override, the descriptor's `httpStatus`, its category's status).
/// `title` and `detail` come from the registry's catalogs in the language `Accept-Language` asks for (English when it
/// asks for none the registry has), never from the error's own description, so a payload cannot reach the body; a
/// 5xx answer says only the generic "something went wrong", whatever the code. An error no catalog registers is
/// answered as `axiom/unknownError`. `Retry-After` comes from the error's own Retry-After, or, for 429 and 503,
/// from the first wait of the descriptor's retry policy. Every answer carries `Vary: Accept-Language`.
public struct ProblemResponder: Sendable {
    /// The registry errors are identified and described by.
    public let registry: ErrorRegistry
    /// Type URIs and statuses.
    public let configuration: ProblemDetailsConfiguration

    /// A responder over `registry`.
    public init(registry: ErrorRegistry, configuration: ProblemDetailsConfiguration = .init()) {
        self.registry = registry
        self.configuration = configuration
    }

    /// The answer for `error`.
    ///
    /// - Parameters:
    ///   - acceptLanguage: the request's `Accept-Language` field value, if it sent one.
    ///   - instance: the request's path, the body's `instance`.
    ///   - traceId: the trace the request belongs to, when it is traced.
    ///   - ownStatus: a status the error was thrown with (a server framework's own HTTP error), kept when the
    ///     registry cannot identify the error and it is a 4xx or 5xx.
    public func answer(
        _ error: any Error, acceptLanguage: String?, instance: String, traceId: String? = nil, ownStatus: Int? = nil
    ) -> ProblemAnswer {
        let (identity, descriptor) = registry.resolve(error)
        var status = configuration.status(for: descriptor)
        if descriptor.code == ErrorCatalog.unknownCode, let ownStatus, (400...599).contains(ownStatus) {
            status = ownStatus
        }
        let locale = AcceptLanguage(acceptLanguage).preferred(from: registry.locales)
        let localizer = Localizer(registry: registry, locale: locale)
        let generic = status >= 500
        let title = generic ? localizer.text(forKey: Localizer.generalTitleKey) : localizer.title(for: descriptor)
        let detail = generic ? localizer.text(forKey: Localizer.unexpectedKey) : localizer.message(for: descriptor)
        // An error no catalog registers is answered with the one generic identity: its own code (for a Swift error,
        // its type's name) is an implementation detail, and goes only to the log, the span and the metrics.
        let publicCode = descriptor.code == ErrorCatalog.unknownCode ? ErrorCatalog.unknownCode : identity.code
        let problem = ProblemDetails(
            type: configuration.type(of: publicCode), title: title?.text ?? "Something went wrong", status: status,
            detail: detail?.text ?? "Something went wrong. Please try again.", instance: instance,
            code: publicCode.description, traceId: traceId)

        var fields: HTTPFields = [.contentType: ProblemDetails.mediaType]
        // The texts were chosen by Accept-Language: a shared cache must not serve one language's answer to a client
        // that asked for another (RFC 9110 §12.5.5; a 404 is cacheable by default).
        fields[.vary] = "Accept-Language"
        fields[.contentLanguage] = detail?.locale ?? Localizer.baseLocale
        if let seconds = Self.retryAfterSeconds(identity: identity, descriptor: descriptor, status: status) {
            fields[.retryAfter] = String(seconds)
        }
        let body = Data(problem.json)
        return ProblemAnswer(
            response: HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields), body: body,
            problem: problem, code: identity.code)
    }

    /// Whole seconds to wait before trying again, if the error or its descriptor says: the error's own Retry-After
    /// (capped by the policy's longest wait when there is a policy), or for 429 and 503 the policy's first wait.
    public static func retryAfterSeconds(identity: ErrorIdentity, descriptor: ErrorDescriptor, status: Int) -> Int? {
        var wait = identity.retryAfter
        if let own = wait, let policy = descriptor.retry { wait = min(own, policy.maxDelay) }
        if wait == nil, status == 429 || status == 503, let policy = descriptor.retry { wait = policy.delay }
        guard let wait, wait > .zero else { return nil }
        let (seconds, attoseconds) = wait.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
#endif
