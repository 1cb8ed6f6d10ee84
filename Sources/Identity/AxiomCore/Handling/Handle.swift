/// The last line: takes what nobody else did, runs its action (present, report), and ends the episode: the
/// fate `handle`, which ends an error as `handled`.
public struct Handle: ErrorHandler {
    /// What it takes.
    @usableFromInline package let match: ErrorMatch
    let action: (@Sendable (ErrorEvent) throws -> Void)?
    @usableFromInline let hasAction: Bool

    /// Handles matching events (every event by default), running `action` for each.
    public init(_ match: ErrorMatch = .any, action: (@Sendable (ErrorEvent) throws -> Void)? = nil) {
        self.match = match
        self.action = action
        self.hasAction = action != nil
    }

    @inlinable
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision {
        guard match.matches(event) else { return .pass }
        if hasAction { try act(event) }
        return .handle
    }

    @usableFromInline
    func act(_ event: ErrorEvent) throws { try action?(event) }

    @_documentation(visibility: internal)
    public func bound(to registry: ErrorRegistry) -> Handle { Handle(match.bound(to: registry), action: action) }
}
