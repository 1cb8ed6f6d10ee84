/// What every stage of an operation knows about the call it is passing on.
public struct OperationContext: Sendable {
    /// The operation's name, used in logs, metrics and error events.
    public var name: String
    /// Which attempt this is, from 1. The retry stage raises it for the stages after it.
    public var attempt: Int

    /// Creates the context of a first attempt.
    @inlinable
    package init(name: String, attempt: Int = 1) {
        self.name = name
        self.attempt = attempt
    }
}
