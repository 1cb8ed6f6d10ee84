import AxiomCatalog
import Logging

/// What a caller gets back from a pipeline when the error did not escalate (an escalation is thrown as
/// ``EscalatedError``): from ``ErrorPipeline/run(_:metadata:_:)``, the operation's value or how its error ended;
/// from ``ErrorPipeline/decide(_:operation:metadata:)``, how an error caught outside `run` ended, as an
/// `Outcome<any Sendable>` whose recovered value is a handler's fallback.
///
/// The fate is named with the one `Disposition` (``disposition``), as the catalog prescribes it, a handler's
/// ``ErrorDecision`` carries it, observers receive it, and the log line, the metric label and the span attribute
/// spell it.
public enum Outcome<Value: Sendable>: Sendable {
    /// It succeeded at once. (`decide` never returns it: it starts from an error.)
    case success(Value)
    /// It failed, and a recovery made it succeed: a retry's value, or a handler's fallback.
    case recovered(Value, ErrorEvent)
    /// It failed with an expected error, which was dropped.
    case ignored(ErrorEvent)
    /// It failed, and a `Handle` handler (or the terminal layer's end) took the error.
    case handled(ErrorEvent)

    /// The value, if the operation came to one.
    @inlinable
    public var value: Value? {
        switch self {
        case .success(let value), .recovered(let value, _): value
        case .ignored, .handled: nil
        }
    }

    /// The error event, if the operation failed.
    @inlinable
    public var event: ErrorEvent? {
        switch self {
        case .success: nil
        case .recovered(_, let event), .ignored(let event), .handled(let event): event
        }
    }

    /// The fate the error met, or nil on success.
    @inlinable
    public var disposition: Disposition? {
        switch self {
        case .success: nil
        case .recovered: .recover
        case .ignored: .ignore
        case .handled: .handle
        }
    }
}
