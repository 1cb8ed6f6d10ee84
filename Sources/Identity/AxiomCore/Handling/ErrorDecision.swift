import AxiomCatalog

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

    /// The fate this decision carries out, or nil for ``pass``: the same `Disposition` a descriptor prescribes,
    /// that observers receive when the layer carries it out, and that the metrics label and the log line carry.
    @inlinable
    public var disposition: Disposition? {
        switch self {
        case .pass: nil
        case .ignore: .ignore
        case .recover: .recover
        case .escalate: .escalate
        case .handle: .handle
        }
    }
}
