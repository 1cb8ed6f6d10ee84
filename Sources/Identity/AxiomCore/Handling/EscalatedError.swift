import Synchronization

/// The error a layer throws when it escalates: the (maybe translated) error and the event it came from.
///
/// The next layer's pipeline unwraps it, so its handlers see `error`, and the trail is kept in the new
/// event's `previousErrors`. The registry identifies it as the error it carries.
public struct EscalatedError: ErrorEnvelope, Sendable, CustomStringConvertible {
    /// The error as the next layer should see it.
    public let error: any Error
    /// The event of the layer that escalated.
    public let event: ErrorEvent
    /// The layer it is meant for.
    public let target: Layer

    public var description: String { "\(error) (escalated from \(event.layer) to \(target))" }

    /// The error it carries, which the registry identifies it as.
    public var enclosedError: any Error { error }
}
