/// A layer of the application that errors flow through: client → context → application.
public struct Layer: Hashable, Sendable, CustomStringConvertible {
    /// The layer's name, used in logs and metrics.
    public let name: String

    /// Creates a layer.
    public init(_ name: String) { self.name = name }

    /// Actors that own state and talk to the outside world.
    public static let client = Layer("client")
    /// Coordinators that orchestrate clients for one use case.
    public static let context = Layer("context")
    /// The top: what the user sees. Its default handling is terminal.
    public static let application = Layer("application")

    public var description: String { name }
}

/// Return addresses captured where an error entered the pipeline. Symbolicated only when logged.
public struct CapturedStack: Sendable, Hashable {
    /// Return addresses, innermost first.
    public var addresses: [UInt]

    /// Creates a stack from return addresses.
    public init(addresses: [UInt]) { self.addresses = addresses }
}

/// Captures the current thread's stack. The crash module provides one backed by libunwind.
public protocol StackCapturer: Sendable {
    /// The current stack without the innermost `skippingFrames` frames, or nil if it cannot be taken.
    func captureStack(skippingFrames: Int) -> CapturedStack?
}

/// A handler that threw while deciding. The event keeps it; the original error is not lost.
public struct HandlerFailure: Sendable, CustomStringConvertible {
    /// The handler's type name.
    public let handler: String
    /// What it threw.
    public let error: any Error

    public var description: String { "\(handler) threw \(error)" }
}

/// An error that left an operation, with everything handlers need to decide its fate.
///
/// One event is one episode: when a recovery fails, the new error replaces `error`, the old one moves to
/// `previousErrors`, and `attempt` grows. The episode ends with exactly one ``ErrorResolution``.
public struct ErrorEvent: Sendable {
    /// The error being decided.
    public internal(set) var error: any Error
    /// Its identity as the registry read it (for unknown types, `swift/<TypeName>`).
    public internal(set) var identity: ErrorIdentity
    /// Its descriptor.
    public internal(set) var descriptor: ErrorDescriptor
    /// The layer deciding it.
    public let layer: Layer
    /// The operation that failed.
    public let operation: String
    /// Which attempt failed, from 1.
    public internal(set) var attempt: Int
    /// Facts about the operation, logged with the outcome (after redaction).
    public var metadata: [String: String]
    /// The stack where the error entered the pipeline, for severe errors.
    public internal(set) var stack: CapturedStack?
    /// Earlier errors of this episode: failed recoveries, and the errors of lower layers it escalated from.
    public internal(set) var previousErrors: [any Error]
    /// Handlers that threw while deciding this event.
    public internal(set) var handlerFailures: [HandlerFailure]
    /// How many layers this error has already crossed.
    public internal(set) var escalations: Int
    /// The layer it was escalated from, if any.
    public internal(set) var escalatedFrom: Layer?

    /// The error's code.
    @inlinable public var code: ErrorCode { identity.code }
    /// The descriptor's category.
    @inlinable public var category: ErrorCategory { descriptor.category }

    @usableFromInline
    let errorType: ObjectIdentifier

    /// Creates an event for an error, reading its identity and descriptor from a registry.
    public init(
        error: any Error, layer: Layer, operation: String, attempt: Int = 1, metadata: [String: String] = [:],
        registry: ErrorRegistry = .shared
    ) {
        self.error = error
        self.errorType = ObjectIdentifier(type(of: error))
        self.identity = registry.identity(of: error)
        self.descriptor = registry.descriptor(for: identity.code) ?? registry.snapshot.unknown
        self.layer = layer
        self.operation = operation
        self.attempt = attempt
        self.metadata = metadata
        self.stack = nil
        self.previousErrors = []
        self.handlerFailures = []
        self.escalations = 0
        self.escalatedFrom = nil
    }

    /// The same episode, now failing with a new error (a recovery that failed).
    mutating func replaceError(with newError: any Error, registry: ErrorRegistry) {
        previousErrors.append(error)
        error = newError
        identity = registry.identity(of: newError)
        descriptor = registry.descriptor(for: identity.code) ?? registry.snapshot.unknown
        attempt += 1
    }

    /// Keeps what a handler threw; the event's own error is untouched.
    @usableFromInline
    mutating func recordFailure<H>(of handler: H.Type, _ error: any Error) {
        handlerFailures.append(HandlerFailure(handler: String(describing: handler), error: error))
    }

    /// Whether the error is of type `E` (exactly, or a subclass for classes).
    @inlinable
    public func isError<E: Error>(_: E.Type) -> Bool {
        errorType == ObjectIdentifier(E.self) || (E.self is AnyClass && error is E)
    }
}

/// How an error episode ended. Every event gets exactly one.
public enum ErrorResolution: Sendable, Hashable, CustomStringConvertible {
    /// Expected and dropped.
    case ignored
    /// The operation succeeded after all (retry, refresh, fallback value).
    case recovered
    /// Passed, maybe translated, to another layer.
    case escalated(to: Layer)
    /// Taken by a default handler: logged, counted, presented; the end.
    case handled

    /// The disposition this resolution carries out.
    public var disposition: Disposition {
        switch self {
        case .ignored: .ignore
        case .recovered: .recover
        case .escalated: .escalate
        case .handled: .default
        }
    }

    public var description: String {
        switch self {
        case .ignored: "ignored"
        case .recovered: "recovered"
        case .escalated(let layer): "escalated to \(layer)"
        case .handled: "handled"
        }
    }
}

/// The error a layer throws when it escalates: the (maybe translated) error and the event it came from.
///
/// The next layer's pipeline unwraps it, so its handlers see `error`, and the trail is kept in the new
/// event's `previousErrors`. The registry identifies it as the error it carries.
public struct EscalatedError: Error, Sendable, CustomStringConvertible {
    /// The error as the next layer should see it.
    public let error: any Error
    /// The event of the layer that escalated.
    public let event: ErrorEvent
    /// The layer it is meant for.
    public let target: Layer

    public var description: String { "\(error) (escalated from \(event.layer) to \(target))" }
}
