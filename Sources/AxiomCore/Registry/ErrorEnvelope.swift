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
