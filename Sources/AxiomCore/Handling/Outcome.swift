import AxiomCatalog
import Logging

/// What an operation run through a pipeline came to, when it did not escalate.
public enum Outcome<Value: Sendable>: Sendable {
    /// It succeeded at once.
    case success(Value)
    /// It failed, and a recovery made it succeed.
    case recovered(Value, ErrorEvent)
    /// It failed with an expected error, which was dropped.
    case ignored(ErrorEvent)
    /// It failed, and a `Handle` handler (the last line) took the error.
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

    /// How the error ended, or nil on success.
    @inlinable
    public var resolution: ErrorResolution? {
        switch self {
        case .success: nil
        case .recovered: .recovered
        case .ignored: .ignored
        case .handled: .handled
        }
    }

    /// The fate the error met, or nil on success: ``resolution``'s ``ErrorResolution/disposition``.
    @inlinable
    public var disposition: Disposition? { resolution?.disposition }
}
