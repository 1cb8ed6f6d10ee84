/// Drops expected errors: a cancelled operation, a wallet the user never created.
public struct Ignore: ErrorHandler {
    /// What it takes.
    @usableFromInline package let match: ErrorMatch

    /// Ignores matching events.
    public init(_ match: ErrorMatch) { self.match = match }
    /// Ignores errors of a type.
    public init<E: Error>(_ type: E.Type) { self.match = .type(type) }

    @inlinable
    public func decide(_ event: ErrorEvent) -> ErrorDecision {
        match.matches(event) ? .ignore : .pass
    }

    @_documentation(visibility: internal)
    public func bound(to registry: ErrorRegistry) -> Ignore { Ignore(match.bound(to: registry)) }
}
