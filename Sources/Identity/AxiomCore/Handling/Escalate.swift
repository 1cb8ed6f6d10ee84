/// Passes errors this layer cannot handle to the next one, maybe translated.
public struct Escalate: ErrorHandler {
    /// What it takes.
    @usableFromInline package let match: ErrorMatch
    let translate: (@Sendable (ErrorEvent) -> any Error)?

    /// Escalates matching events, translating them when `translate` is given.
    public init(_ match: ErrorMatch, translate: (@Sendable (ErrorEvent) -> any Error)? = nil) {
        self.match = match
        self.translate = translate
    }

    /// Escalates matching events as `error`.
    public init(_ match: ErrorMatch, as error: some Error) {
        self.init(match, translate: { _ in error })
    }

    @inlinable
    public func decide(_ event: ErrorEvent) -> ErrorDecision {
        guard match.matches(event) else { return .pass }
        return escalation(event)
    }

    @usableFromInline
    func escalation(_ event: ErrorEvent) -> ErrorDecision { .escalate(translatedTo: translate?(event)) }

    @_documentation(visibility: internal)
    public func bound(to registry: ErrorRegistry) -> Escalate {
        Escalate(match.bound(to: registry), translate: translate)
    }
}
