/// Decides the fate of error events. Handlers compose with ``ErrorHandlerBuilder``; the first that does
/// not pass decides.
///
/// Implement ``decide(_:)``: it is the only requirement a handler must implement. A handler that throws loses
/// nothing: the pipeline records the failure on the event and asks the next handler.
///
/// A handler that asks other handlers (a combinator: "the first of these that decides", "these, but only for
/// the payments layer") implements the two other requirements too, forwarding them to the handlers it holds:
/// ``decide(_:failures:)``, so that what they throw is recorded and the next is asked, and ``bound(to:)``, so that
/// the handlers it holds match registered codes by identity. Their defaults suit every other handler.
public protocol ErrorHandler: Sendable {
    /// Decides about an event, or `.pass`.
    func decide(_ event: ErrorEvent) throws -> ErrorDecision

    /// Decides about an event, adding what a handler threw to `failures` (and passing) instead of throwing, so
    /// that the next handler is asked and the pipeline records every failure on the event. The event is only
    /// read: handlers see it in place, with no copy.
    ///
    /// The default calls ``decide(_:)`` and records what it throws. A combinator asks each handler it holds
    /// through this method, in order, and returns the first decision that is not `.pass`.
    func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision

    /// This handler with its code matchers (``ErrorMatch/code(_:)``) resolved against `registry`, so that
    /// matching compares descriptors by identity instead of comparing codes. A pipeline calls it once, when it
    /// is created, with the registry it was configured with.
    ///
    /// The default returns the handler unchanged (still correct: an unresolved matcher compares codes). A
    /// combinator returns itself with every handler it holds bound.
    func bound(to registry: ErrorRegistry) -> Self
}

extension ErrorHandler {
    /// Returns the handler unchanged: a handler without code matchers has nothing to resolve.
    public func bound(to registry: ErrorRegistry) -> Self { self }

    /// Calls ``decide(_:)``, adding what it throws to `failures`.
    @inlinable @inline(__always)
    public func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        do {
            return try decide(event)
        } catch {
            failures.append(HandlerFailure(Self.self, error))
            return .pass
        }
    }

    /// `decide` for a composition: its parts' decision. When none decided and a part threw, it throws what
    /// the first one threw (``decide(_:failures:)`` keeps them all).
    @inlinable
    func decideThroughDispatch(_ event: ErrorEvent) throws -> ErrorDecision {
        var failures = HandlerFailures()
        let decision = decide(event, failures: &failures)
        if case .pass = decision, let first = failures.all.first { throw first.error }
        return decision
    }
}
