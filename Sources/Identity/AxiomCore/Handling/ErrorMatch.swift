import AxiomCatalog

/// Which events a handler takes: by type, code, domain, category, or predicate.
public struct ErrorMatch: Sendable {
    @usableFromInline
    enum Kind: Sendable {
        case any
        case type(@Sendable (ErrorEvent) -> Bool)
        case code(ErrorCode, alias: Int?)
        case descriptor(ErrorDescriptor)
        case codes(Set<ErrorCode>)
        case domain(String)
        case category(ErrorCategory)
        case predicate(@Sendable (ErrorEvent) -> Bool)
    }

    /// The common matchers again, with payloads that need no reference counting, so testing them costs a
    /// compare and nothing else.
    @usableFromInline
    enum Fast: Sendable {
        case any
        case descriptor(Unmanaged<ErrorDescriptor>)
        case category(ErrorCategory)
        case general
    }

    /// The matcher as built, in a box: handlers hold a matcher inline, and a one-word box keeps a whole
    /// chain of handlers small (the hot path reads only `fast`).
    @usableFromInline
    final class Storage: Sendable {
        let kind: Kind
        init(_ kind: Kind) { self.kind = kind }
    }

    @usableFromInline
    let storage: Storage
    @usableFromInline
    let fast: Fast

    var kind: Kind { storage.kind }

    @usableFromInline
    init(_ kind: Kind) {
        self.storage = Storage(kind)
        switch kind {
        case .any: fast = .any
        case .descriptor(let descriptor): fast = .descriptor(Unmanaged.passUnretained(descriptor))
        case .category(let category): fast = .category(category)
        default: fast = .general
        }
    }

    /// Every event.
    public static let any = ErrorMatch(.any)

    /// Errors of type `E`.
    public static func type<E: Error>(_: E.Type) -> ErrorMatch {
        ErrorMatch(.type { $0.isError(E.self) })
    }

    /// Errors with this code. A numeric code (`ErrorCode("telnyx", "-32003")`) matches the code it is an alias of.
    public static func code(_ code: ErrorCode) -> ErrorMatch { ErrorMatch(.code(code, alias: Int(code.code))) }

    /// Errors with any of these codes.
    public static func codes(_ codes: Set<ErrorCode>) -> ErrorMatch { ErrorMatch(.codes(codes)) }

    /// Errors of a domain.
    public static func domain(_ domain: String) -> ErrorMatch { ErrorMatch(.domain(domain)) }

    /// Errors whose descriptor has this category.
    public static func category(_ category: ErrorCategory) -> ErrorMatch { ErrorMatch(.category(category)) }

    /// Events for which the predicate holds.
    public static func `where`(_ predicate: @escaping @Sendable (ErrorEvent) -> Bool) -> ErrorMatch {
        ErrorMatch(.predicate(predicate))
    }

    /// This matcher with a registered code resolved to its descriptor.
    package func bound(to registry: ErrorRegistry) -> ErrorMatch {
        switch kind {
        case .code(let code, _):
            guard let descriptor = registry.descriptor(for: code) else { return self }
            return ErrorMatch(.descriptor(descriptor))
        default:
            return self
        }
    }

    /// Whether the event matches.
    @inlinable
    package func matches(_ event: ErrorEvent) -> Bool {
        switch fast {
        case .any: true
        // A registered code resolves to one shared descriptor, numeric aliases included, and a code never
        // changes its descriptor: identity is equality. (Registered descriptors are immortal.)
        case .descriptor(let descriptor): event.descriptorReference.toOpaque() == descriptor.toOpaque()
        case .category(let category): event.category == category
        case .general: matchesGeneral(event)
        }
    }

    @usableFromInline
    func matchesGeneral(_ event: ErrorEvent) -> Bool {
        switch kind {
        case .any: true
        case .type(let test): test(event)
        case .descriptor(let descriptor):
            // A registered code resolves to one shared descriptor, numeric aliases included, and a code never
            // changes its descriptor: identity is equality.
            event.descriptor === descriptor
        case .code(let code, let alias):
            event.descriptor.code == code || event.identity.code == code
                || (alias != nil && alias == event.descriptor.numericCode
                    && code.domain == event.descriptor.code.domain)
        case .codes(let codes): codes.contains(event.descriptor.code) || codes.contains(event.identity.code)
        case .domain(let domain): event.identity.code.domain == domain
        case .category(let category): event.descriptor.category == category
        case .predicate(let predicate): predicate(event)
        }
    }
}
