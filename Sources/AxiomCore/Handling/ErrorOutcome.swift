import AxiomCatalog
import Logging

/// How an error decided outside ``ErrorPipeline/run(_:metadata:_:)`` ended, when it did not escalate
/// (escalation is thrown).
public enum ErrorOutcome: Sendable {
    /// An expected error, dropped.
    case ignored(ErrorEvent)
    /// A handler gave a fallback value for it.
    case recovered(any Sendable, ErrorEvent)
    /// A `Handle` handler (or the terminal layer's end) took it.
    case handled(ErrorEvent)

    /// The error's event.
    @inlinable
    public var event: ErrorEvent {
        switch self {
        case .ignored(let event), .recovered(_, let event), .handled(let event): event
        }
    }

    /// How the error ended.
    @inlinable
    public var resolution: ErrorResolution {
        switch self {
        case .ignored: .ignored
        case .recovered: .recovered
        case .handled: .handled
        }
    }

    /// The fate the error met: ``resolution``'s ``ErrorResolution/disposition``.
    @inlinable
    public var disposition: Disposition { resolution.disposition }

    /// The fallback value, when a handler recovered with one.
    @inlinable
    public var value: (any Sendable)? {
        if case .recovered(let value, _) = self { return value }
        return nil
    }
}
