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
