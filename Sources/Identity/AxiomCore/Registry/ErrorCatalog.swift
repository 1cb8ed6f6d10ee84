import AxiomCatalog

/// A set of error domains with their descriptors and messages, registered as one unit.
///
/// A catalog is taken whole or not at all: see ``ErrorRegistry/register(_:)``.
public struct ErrorCatalog: Sendable {
    /// Who provides it: `builtin`, or a plugin's reverse-DNS id.
    package var source: String
    /// The provider's version, for diagnostics.
    package var version: String
    /// The domains it owns. Every descriptor's domain must be one of them.
    package var domains: [String]
    /// The descriptors.
    package var descriptors: [ErrorDescriptor]
    /// Messages per locale: `messages["en"]["error.nwc.RATE_LIMITED"]`.
    package var messages: [String: [String: String]]

    /// The locale every catalog must cover, and the last fallback of every other: `en`.
    package static let baseLocale = "en"

    /// Creates a catalog.
    package init(
        source: String, version: String = "1.0.0", domains: [String], descriptors: [ErrorDescriptor],
        messages: [String: [String: String]] = [:]
    ) {
        self.source = source
        self.version = version
        self.domains = domains
        self.descriptors = descriptors
        self.messages = messages
    }

    /// A catalog of declared codes: their descriptors, and `messages` with every code's texts added under its keys
    /// (a key `messages` holds already keeps its text).
    public init(
        source: String, version: String = "1.0.0", domains: [String], definitions: [CodeDefinition],
        messages: [String: [String: String]] = [:]
    ) {
        var messages = messages
        for definition in definitions { definition.addTexts(to: &messages) }
        self.init(
            source: source, version: version, domains: domains,
            descriptors: definitions.map { ErrorDescriptor($0, source: source) }, messages: messages)
    }
}

/// Why a catalog was refused. Nothing of a refused catalog is registered.
public struct RegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the problem is. A struct, so that a 1.x release may add codes without breaking a `switch`.
    public typealias Code = NamedCase<RegistrationError>

    /// What the problem is.
    public let code: Code
    /// The source that tried to register.
    public let source: String
    /// The source that already holds the clashing item, when there is one.
    public let existingSource: String?
    /// What clashed (a domain, a code, an alias).
    public let subject: String

    public var description: String {
        switch code {
        case .domainClash:
            "domain '\(subject)' from \(source) clashes with the same domain from \(existingSource ?? "?")"
        case .duplicateCode:
            "code \(subject) from \(source) is already registered by \(existingSource ?? source)"
        case .duplicateAlias:
            "numeric alias \(subject) from \(source) is already used by \(existingSource ?? source)"
        case .undeclaredDomain:
            "code \(subject) from \(source) is outside the domains the catalog declares"
        case .duplicateSource:
            "source \(source) is already registered"
        case .invalidCatalog:
            "catalog from \(source) is malformed: \(subject)"
        default:
            "catalog from \(source) refused (\(code)): \(subject)"
        }
    }
}

extension NamedCase where Owner == RegistrationError {
    /// A domain is already owned by another source.
    public static var domainClash: Self { Self(name: "domainClash") }
    /// A code appears twice.
    public static var duplicateCode: Self { Self(name: "duplicateCode") }
    /// A numeric alias appears twice in one domain.
    public static var duplicateAlias: Self { Self(name: "duplicateAlias") }
    /// A descriptor's domain is not among the catalog's domains.
    public static var undeclaredDomain: Self { Self(name: "undeclaredDomain") }
    /// The source is already registered.
    public static var duplicateSource: Self { Self(name: "duplicateSource") }
    /// The catalog is malformed (empty source, empty domain name, …).
    public static var invalidCatalog: Self { Self(name: "invalidCatalog") }
}
