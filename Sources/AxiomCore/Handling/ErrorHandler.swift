/// What a handler decided about an event.
public enum ErrorDecision: Sendable {
    /// Not mine: ask the next handler.
    case pass
    /// Expected: drop it.
    case ignore
    /// Make the operation succeed.
    case recover(Recovery)
    /// Pass it to the next layer; `translatedTo` replaces the error there.
    case escalate(translatedTo: (any Error)?)
    /// The last line: it ends here.
    case handle
}

/// How to make a failed operation succeed.
public enum Recovery: Sendable {
    /// Run the operation again after a wait.
    case retry(after: Duration)
    /// Run `prepare` (refresh a token, reconnect), then the operation again after a wait.
    case prepareThenRetry(after: Duration, prepare: @Sendable () async throws -> Void)
    /// Use this value as the operation's result. It must be of the operation's result type.
    case fallback(any Sendable)
}

/// Decides the fate of error events. Handlers compose with ``ErrorHandlerBuilder``; the first that does
/// not pass decides.
///
/// Implement ``decide(_:)``: it is the only requirement a handler implements. A handler that throws loses
/// nothing: the pipeline records the failure on the event and asks the next handler.
public protocol ErrorHandler: Sendable {
    /// Decides about an event, or `.pass`.
    func decide(_ event: ErrorEvent) throws -> ErrorDecision

    // The two requirements below are the framework's composition plumbing, hidden from the documentation: the
    // builder's compositions override them; a handler written outside the framework never needs to.

    /// Decides, adding what a handler threw to `failures` (and passing) instead of losing it. The event is
    /// only read: handlers see it in place, with no copy. Compositions override it to walk their parts;
    /// other handlers keep the default.
    @_documentation(visibility: internal)
    func _dispatch(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision

    /// This handler with its code matchers resolved against a registry, so matching compares descriptors
    /// by identity instead of comparing strings. Pipelines call it once, when they are created.
    @_documentation(visibility: internal)
    func _bound(to registry: ErrorRegistry) -> Self
}

extension ErrorHandler {
    /// Handlers without code matchers have nothing to bind.
    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Self { self }

    /// Decides through ``decide(_:)``, recording what it throws.
    @_documentation(visibility: internal)
    @inlinable @inline(__always)
    public func _dispatch(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        do {
            return try decide(event)
        } catch {
            failures.append(HandlerFailure(Self.self, error))
            return .pass
        }
    }

    /// `decide` for a composition: its parts' decision. When none decided and a part threw, it throws what
    /// the first one threw (``_dispatch(_:failures:)`` keeps them all).
    @inlinable
    func decideThroughDispatch(_ event: ErrorEvent) throws -> ErrorDecision {
        var failures = HandlerFailures()
        let decision = _dispatch(event, failures: &failures)
        if case .pass = decision, let first = failures.all.first { throw first.error }
        return decision
    }
}

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
    public func bound(to registry: ErrorRegistry) -> ErrorMatch {
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
    public func matches(_ event: ErrorEvent) -> Bool {
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
