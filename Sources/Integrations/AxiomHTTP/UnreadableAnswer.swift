#if HTTP
import Axiom

/// A peer's answer that ``ProblemReader`` could not read as its error: not problem details at all, or problem
/// details it could not read. Domain `axiom.http.peer`, registered by the reader in its registry.
///
/// Its ``reason`` says what was wrong, never what the body held: a body may carry secrets.
public struct UnreadableAnswer: IdentifiableError, Sendable, Hashable, CustomStringConvertible {
    /// What kind of answer it was.
    public typealias Code = NamedCase<UnreadableAnswer>

    /// What kind of answer it was: also its code in ``domain``.
    public let code: Code
    /// What was wrong with it, in a few words.
    public let reason: String
    /// The answer's status.
    public let status: Int

    /// An unreadable answer.
    package init(_ code: Code, reason: String, status: Int) {
        self.code = code
        self.reason = reason
        self.status = status
    }

    /// The domain's name.
    public static let domain = "axiom.http.peer"

    public var errorCode: ErrorCode { ErrorCode(Self.domain, code.name) }

    public var description: String { "\(errorCode) (status \(status)): \(reason)" }

    /// The domain's codes, with their fates and texts: a peer that answers what cannot be read is a service this one
    /// depends on that failed (category `api`).
    package static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            CodeDefinition(
                domain, Code.notProblemDetails.name, category: .api, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Unexpected answer",
                        message:
                            "A service this one depends on answered with something other than an error description."),
                    "tr": .init(
                        title: "Beklenmeyen yanıt",
                        message: "Bu hizmetin bağlı olduğu bir hizmet, hata açıklaması yerine başka bir yanıt verdi."),
                ]),
            CodeDefinition(
                domain, Code.unreadableProblem.name, category: .api, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Unreadable answer",
                        message:
                            "A service this one depends on answered with an error description that could not be read."),
                    "tr": .init(
                        title: "Okunamayan yanıt",
                        message: "Bu hizmetin bağlı olduğu bir hizmetin hata açıklaması okunamadı."),
                ]),
        ])

    /// Registers the domain in `registry`. Idempotent.
    package static func register(in registry: ErrorRegistry) throws(RegistrationError) {
        try registry.registerFrameworkDomain(builtinDomain)
    }
}

extension NamedCase where Owner == UnreadableAnswer {
    /// Not problem details: another content type, or a status below 400 (a success with a problem body).
    public static var notProblemDetails: Self { Self(name: "notProblemDetails") }
    /// Problem details that could not be read: too large, nested too deep, not JSON, a member of the wrong type.
    public static var unreadableProblem: Self { Self(name: "unreadableProblem") }
}
#endif
