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
///
/// The fields every event has are stored inline; the ones most events never use (metadata, a stack,
/// earlier errors, handler failures, escalation facts) live in one shared box that is created only when
/// one of them is set, so creating and passing an event costs no allocation.
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

    @usableFromInline
    let errorType: ObjectIdentifier

    @usableFromInline
    var details: Details?

    /// The rarely used parts of an event.
    @usableFromInline
    struct DetailsValue: Sendable {
        var metadata: [String: String] = [:]
        var stack: CapturedStack?
        var previousErrors: [any Error] = []
        var handlerFailures: [HandlerFailure] = []
        var escalations = 0
        var escalatedFrom: Layer?
    }

    /// The box that holds them. Immutable, so sharing it between copies of an event is safe; a change
    /// replaces the box.
    @usableFromInline
    final class Details: Sendable {
        let value: DetailsValue
        init(_ value: DetailsValue) { self.value = value }
    }

    @usableFromInline
    mutating func updateDetails(_ change: (inout DetailsValue) -> Void) {
        var value = details?.value ?? DetailsValue()
        change(&value)
        details = Details(value)
    }

    /// Facts about the operation, logged with the outcome (after redaction).
    public var metadata: [String: String] {
        get { details?.value.metadata ?? [:] }
        set { updateDetails { $0.metadata = newValue } }
    }
    /// The stack where the error entered the pipeline, for severe errors.
    public internal(set) var stack: CapturedStack? {
        get { details?.value.stack }
        set { updateDetails { $0.stack = newValue } }
    }
    /// Earlier errors of this episode: failed recoveries, and the errors of lower layers it escalated from.
    public internal(set) var previousErrors: [any Error] {
        get { details?.value.previousErrors ?? [] }
        set { updateDetails { $0.previousErrors = newValue } }
    }
    /// Handlers that threw while deciding this event.
    public internal(set) var handlerFailures: [HandlerFailure] {
        get { details?.value.handlerFailures ?? [] }
        set { updateDetails { $0.handlerFailures = newValue } }
    }
    /// How many layers this error has already crossed.
    public internal(set) var escalations: Int {
        get { details?.value.escalations ?? 0 }
        set { updateDetails { $0.escalations = newValue } }
    }
    /// The layer it was escalated from, if any.
    public internal(set) var escalatedFrom: Layer? {
        get { details?.value.escalatedFrom }
        set { updateDetails { $0.escalatedFrom = newValue } }
    }

    /// The error's code.
    @inlinable public var code: ErrorCode { identity.code }
    /// The descriptor's category.
    @inlinable public var category: ErrorCategory { descriptor.category }

    /// Creates an event for an error, reading its identity and descriptor from a registry.
    public init(
        error: any Error, layer: Layer, operation: String, attempt: Int = 1, metadata: [String: String] = [:],
        registry: ErrorRegistry = .shared
    ) {
        let resolved = registry.resolve(error)
        self.error = error
        self.errorType = ObjectIdentifier(type(of: error))
        self.identity = resolved.identity
        self.descriptor = resolved.descriptor
        self.layer = layer
        self.operation = operation
        self.attempt = attempt
        self.details = metadata.isEmpty ? nil : Details(DetailsValue(metadata: metadata))
    }

    /// The same episode, now failing with a new error (a recovery that failed).
    @usableFromInline
    mutating func replaceError(with newError: any Error, registry: ErrorRegistry) {
        let old = error
        updateDetails { $0.previousErrors.append(old) }
        let unwrapped = (newError as? EscalatedError)?.error ?? newError
        error = unwrapped
        (identity, descriptor) = registry.resolve(unwrapped)
        attempt += 1
    }

    /// Keeps what a handler threw; the event's own error is untouched.
    @usableFromInline
    mutating func recordFailure<H>(of handler: H.Type, _ error: any Error) {
        let failure = HandlerFailure(handler: String(describing: handler), error: error)
        updateDetails { $0.handlerFailures.append(failure) }
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
