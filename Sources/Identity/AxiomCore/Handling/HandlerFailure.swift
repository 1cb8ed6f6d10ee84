import Synchronization

/// A handler that threw while deciding. The event keeps it; the original error is not lost.
public struct HandlerFailure: Sendable, CustomStringConvertible {
    /// The handler's type name.
    public let handler: String
    /// What it threw.
    public let error: any Error

    @usableFromInline
    init(_ handler: Any.Type, _ error: any Error) {
        self.handler = String(describing: handler)
        self.error = error
    }

    public var description: String { "\(handler) threw \(error)" }
}

/// What handlers threw while deciding one event, in order. Empty (and free) when none threw.
public struct HandlerFailures: Sendable {
    @usableFromInline
    var storage: [HandlerFailure]?

    /// No failures.
    @inlinable
    package init() { storage = nil }

    /// Whether no handler threw.
    @inlinable
    package var isEmpty: Bool { storage?.isEmpty ?? true }

    /// Every failure, in the order the handlers threw.
    @usableFromInline package var all: [HandlerFailure] { storage ?? [] }

    /// Records one more.
    @usableFromInline package mutating func append(_ failure: HandlerFailure) {
        storage = (storage ?? []) + [failure]
    }
}
