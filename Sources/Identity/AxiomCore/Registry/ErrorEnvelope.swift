/// An error that stands for another one: the registry identifies it, and describes it, as the error it
/// carries, through any number of envelopes.
///
/// An escalation is one (``EscalatedError``); an integration that wraps errors on their way through (a server
/// framework's error with a status, say) can make its wrapper one, so that the wrapped error keeps its code.
/// The registry learns once per type that a type is an envelope; other errors pay nothing for it.
public protocol ErrorEnvelope: Error {
    /// The error it carries.
    var enclosedError: any Error { get }
}

extension ErrorRegistry {
    /// The error inside any number of envelopes (escalations included); any other error as it is. What an event
    /// keeps, since its identity is read from the error the registry identified.
    @usableFromInline
    static func unwrapped(_ error: any Error) -> any Error {
        var error = error
        while let envelope = error as? any ErrorEnvelope { error = envelope.enclosedError }
        return error
    }
}
