import AxiomCatalog
import Synchronization

/// An error that left an operation, with everything handlers need to decide its fate.
///
/// One event is one episode: when a recovery fails, the new error replaces `error`, the old one moves to
/// `previousErrors`, and `attempt` grows. Each layer ends it with exactly one `Disposition`.
///
/// An event is small (seven words), because every handled error makes one and handlers read it in place: the
/// error, its descriptor, the layer and the operation are stored; the identity is read again from the error
/// when asked for (an immortal per-type extractor does it, with no cast); the parts most events never use
/// (the attempt past the first, metadata, a stack, earlier errors, handler failures, escalation facts) live
/// in one shared box that is created only when one of them is set. Creating, deciding and finishing an event
/// allocates nothing.
public struct ErrorEvent: Sendable {
    /// The error being decided. Never an ``EscalatedError``: the pipeline unwraps those.
    public internal(set) var error: any Error
    /// Its descriptor. (Only descriptors a registry resolved are set here: those are immortal.)
    public internal(set) var descriptor: ErrorDescriptor {
        get { descriptorReference.takeUnretainedValue() }
        set { descriptorReference = Unmanaged.passUnretained(newValue) }
    }

    /// Registered descriptors are immortal, so the event holds its own unretained.
    @usableFromInline
    var descriptorReference: Unmanaged<ErrorDescriptor>
    /// The layer deciding it.
    public let layer: Layer
    /// The operation that failed.
    public let operation: String

    /// Reads the identity of `error`; immortal, so holding it unretained is safe.
    @usableFromInline
    var extractor: Unmanaged<TypeExtractor>

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
        var escalatedTo: Layer?
        var attempt = 1
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

    /// Its identity as the registry read it (for unknown types, `swift/<TypeName>`), with any `Retry-After`.
    public var identity: ErrorIdentity {
        let error = self.error
        return extractor._withUnsafeGuaranteedRef { $0.identity(of: error) }
    }

    /// Which attempt failed, from 1. (Kept in the details box: most events are first attempts, and a
    /// stored field would make every event one word bigger than what is passed in registers.)
    public internal(set) var attempt: Int {
        get { details?.value.attempt ?? 1 }
        set { updateDetails { $0.attempt = newValue } }
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
    /// The layer this layer escalated it to, once its disposition is `escalate`; nil otherwise.
    public internal(set) var escalatedTo: Layer? {
        get { details?.value.escalatedTo }
        set { updateDetails { $0.escalatedTo = newValue } }
    }

    /// The error's code, as the error carries it: a numeric alias stays a number (`acme.billing/504`).
    public var code: ErrorCode { identity.code }

    /// The code under which the event is logged and counted: a registered code's canonical name (a numeric alias
    /// resolved to it, `acme.billing/GATEWAY_TIMEOUT`), or ``code`` itself when no catalog registers it, so that
    /// one code never splits into two series or two spellings in the logs.
    package var canonicalCode: ErrorCode {
        let descriptor = self.descriptor
        return descriptor.code == ErrorCatalog.unknownCode ? code : descriptor.code
    }
    /// The descriptor's category.
    @inlinable public var category: ErrorCategory { descriptorReference._withUnsafeGuaranteedRef { $0.category } }

    /// Creates an event for an error, reading its descriptor from a registry. An ``EscalatedError`` is
    /// unwrapped to the error it carries.
    package init(
        error: any Error, layer: Layer, operation: String, attempt: Int = 1, metadata: [String: String] = [:],
        registry: ErrorRegistry = .shared
    ) {
        // Every field assigned here, not through the field-wise initializer: a delegating initializer would
        // copy the whole event once more.
        var error = error
        let resolved: (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>)
        if let direct = registry.resolveUnlessEscalated(error) {
            resolved = direct
        } else {
            error = ErrorRegistry.unwrapped(error)
            resolved = registry.resolveForEvent(error)
        }
        self.error = error
        self.descriptorReference = resolved.descriptor
        self.extractor = resolved.extractor
        self.layer = layer
        self.operation = operation
        self.details =
            metadata.isEmpty && attempt == 1 ? nil : Details(DetailsValue(metadata: metadata, attempt: attempt))
    }

    /// Every field as given: the pipeline's way in, once the registry has resolved the error.
    @usableFromInline
    init(
        error: any Error, descriptor: Unmanaged<ErrorDescriptor>, layer: Layer, operation: String,
        extractor: Unmanaged<TypeExtractor>, details: Details?
    ) {
        self.error = error
        self.descriptorReference = descriptor
        self.layer = layer
        self.operation = operation
        self.extractor = extractor
        self.details = details
    }

    /// The event of an error the registry resolved, with nothing else set.
    @inlinable
    init(
        error: consuming any Error,
        resolved: (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>), layer: Layer,
        operation: String
    ) {
        self.init(
            error: error, descriptor: resolved.descriptor, layer: layer, operation: operation,
            extractor: resolved.extractor, details: nil)
    }

    /// The same episode, now failing with a new error (a recovery that failed) at attempt `attempt` (the next
    /// one when nil).
    @usableFromInline
    mutating func replaceError(with newError: any Error, registry: ErrorRegistry, attempt: Int? = nil) {
        let old = error
        updateDetails { details in
            details.previousErrors.append(old)
            details.attempt = attempt ?? details.attempt + 1
        }
        let unwrapped = ErrorRegistry.unwrapped(newError)
        let resolved = registry.resolveForEvent(unwrapped)
        error = unwrapped
        descriptorReference = resolved.descriptor
        extractor = resolved.extractor
    }

    /// Sets the attempt the error failed at, when the operation's body counted more than one (a retry stage in
    /// its chain). Touches the details box only for an attempt past the first.
    @usableFromInline
    mutating func reachedAttempt(_ attempt: Int) {
        if attempt != self.attempt { self.attempt = attempt }
    }

    /// Keeps what handlers threw; the event's own error is untouched.
    @usableFromInline
    mutating func recordFailures(_ failures: [HandlerFailure]) {
        updateDetails { $0.handlerFailures.append(contentsOf: failures) }
    }

    /// Whether the error is of type `E` (exactly, or a subclass for classes).
    @inlinable
    package func isError<E: Error>(_: E.Type) -> Bool {
        ObjectIdentifier(type(of: error)) == ObjectIdentifier(E.self) || (E.self is AnyClass && error is E)
    }
}
