#if HTTP
import Axiom

/// How ``ProblemResponder`` (and the server adapters on it, such as `ProblemDetailsMiddleware`) turns a decided
/// error into an answer: the type URIs, and the status of each category when a code names none of its own.
public struct ProblemDetailsConfiguration: Sendable {
    /// The prefix of every `type` URI, the error's `domain/code` following it: the service's own, where it documents
    /// its problem types (`https://shop.example/problems/`). When nil, every answer's type is `about:blank` (RFC 9457
    /// §4.2.1: the problem has no semantics beyond its status), and the `code` member alone identifies it.
    package var typeBase: String?
    /// The status of a code whose descriptor names none, by category.
    package var statusByCategory: [ErrorCategory: Int]
    /// Statuses for particular codes, over their descriptors' and their category's.
    package var overrides: [ErrorCode: Int]

    /// The status of each category by default: validation 400, auth 401, credit 402, state 409, capability and
    /// network 503 (the service cannot do it now), api 502 (a service it depends on failed), cancellation 503, and
    /// 500 for storage, configuration and general failures. Not found (404) and rate limited (429) are codes, not
    /// categories: their descriptors name the status (`httpStatus`), as `nwc/NOT_FOUND` and `nwc/RATE_LIMITED` do.
    public static let defaultStatusByCategory: [ErrorCategory: Int] = [
        .validation: 400, .auth: 401, .credit: 402, .state: 409, .capability: 503, .network: 503, .api: 502,
        .cancellation: 503, .storage: 500, .configuration: 500, .general: 500,
    ]

    /// A configuration; `typeBase` should end with `/`.
    ///
    /// - Parameters:
    ///   - typeBase: the prefix of every `type` URI, the error's `domain/code` following it: the service's own, where
    ///     it documents its problem types (`https://shop.example/problems/`). When nil, every answer's type is
    ///     `about:blank` (RFC 9457 §4.2.1: the problem has no semantics beyond its status), and the `code` member alone
    ///     identifies it.
    ///   - statusByCategory: the status of a code whose descriptor names none, by category.
    ///   - overrides: statuses for particular codes, over their descriptors' and their category's.
    public init(
        typeBase: String? = nil, statusByCategory: [ErrorCategory: Int] = [:],
        overrides: [ErrorCode: Int] = [:]
    ) {
        self.typeBase = typeBase
        self.statusByCategory = Self.defaultStatusByCategory.merging(statusByCategory) { _, chosen in chosen }
        self.overrides = overrides
    }

    /// The status of an error with `descriptor`: an override, else the descriptor's own, else its category's; the
    /// registry's unknown code is always 500.
    package func status(for descriptor: ErrorDescriptor) -> Int {
        if let status = overrides[descriptor.code] { return status }
        if descriptor.code == ErrorCatalog.unknownCode { return 500 }
        return descriptor.httpStatus ?? statusByCategory[descriptor.category] ?? 500
    }

    /// The `type` URI of a code: `about:blank` without a ``typeBase``.
    package func type(of code: ErrorCode) -> String {
        guard let typeBase else { return "about:blank" }
        return typeBase + code.domain + "/" + code.code
    }
}
#endif
