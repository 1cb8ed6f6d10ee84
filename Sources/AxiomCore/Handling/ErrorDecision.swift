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
