import AxiomCatalog
import Logging

/// One layer's handlers and what happens around them: escalation, recovery, observation.
///
/// ```swift
/// let client = ErrorPipeline(layer: .client, escalatesTo: .context) {
///     Ignore(CancellationError.self)
///     Recover(.code(ErrorCode("nwc", "RATE_LIMITED")), .descriptorPolicy())
///     FollowDescriptor()
/// }
/// let outcome = try await client.run("payInvoice") { try await wallet.pay(invoice) }
/// ```
///
/// One layer's error flow:
///
/// ```
///   body() ──ok──▶ .success
///     │ throws
///     ▼
///   ErrorEvent ──▶ handlers (first non-pass decides) ──▶ ignore   ──▶ observers ──▶ .ignored
///     ▲                                               ├─▶ handle   ──▶ observers ──▶ .handled
///     │ new error (attempt + 1)                       ├─▶ escalate ──▶ observers ──▶ throw EscalatedError
///     └──────────── recovery failed ◀─────────────────┴─▶ recover  ──ok──▶ observers ──▶ .recovered
/// ```
///
/// Nobody decides: a non-terminal layer escalates, the terminal one handles. Every event reaches the
/// observers exactly once.
public struct ErrorPipeline<Handlers: ErrorHandler>: Sendable {
    /// The layer this pipeline decides for.
    @usableFromInline package let layer: Layer
    /// Where escalated errors go; nil for the terminal layer.
    @usableFromInline package let next: Layer?
    /// The handlers, in order.
    @usableFromInline package let handlers: Handlers
    /// Registry, observers, clock, limits.
    @usableFromInline package let configuration: PipelineConfiguration

    // Facts of the configuration the hot path reads, kept as plain values: reading an optional existential
    // or an array of them to test it copies it (retain, release).
    @usableFromInline let hasObservers: Bool
    @usableFromInline let capturesStacks: Bool
    @usableFromInline let isInstrumented: Bool
    /// The observers, each in a box of its own type, called unretained: calling an observer through its existential
    /// from an array copies it, a retain and a release on an object that every task deciding through this pipeline
    /// shares, so one cache line written from every core, per error.
    @usableFromInline let observerBoxes: [ObserverBox]

    /// Creates a pipeline for `layer`. Escalations go to `escalatesTo`; without one the layer is terminal.
    public init(
        layer: Layer, escalatesTo next: Layer?, configuration: PipelineConfiguration = PipelineConfiguration(),
        @ErrorHandlerBuilder handlers: () -> Handlers
    ) {
        self.layer = layer
        self.next = next
        self.handlers = handlers().bound(to: configuration.registry)
        self.configuration = configuration
        self.hasObservers = !configuration.observers.isEmpty
        self.capturesStacks = configuration.stackCapturer != nil
        self.isInstrumented = configuration.instrument != nil
        self.observerBoxes = configuration.observers.map(makeObserverBox)
    }

    /// Runs an operation; when it throws, decides the error's fate and carries it out.
    ///
    /// - Returns: the value, or how the error ended (ignored, recovered, handled).
    /// - Throws: ``EscalatedError`` when the error goes to the next layer. Run the caller's operation through
    ///   that layer's pipeline and its handlers see the (translated) error.
    @inlinable
    public func run<Value: Sendable>(
        _ operation: String, metadata: [String: String] = [:], _ body: () async throws -> Value
    ) async throws(EscalatedError) -> Outcome<Value> {
        try await run(operation, metadata: metadata, attempts: { (_: inout Int) in try await body() })
    }

    /// Runs an operation that may make several attempts per run (a chain with a retry stage): `body` gets the
    /// number of the attempt it starts with (1, then the failed attempt's number + 1 for a recovery) and sets
    /// it to the number of the last attempt it made before throwing.
    ///
    /// The event carries that number, so a handler's retry policy counts the attempts the body already made:
    /// one count per operation, whoever retries (`OperationRunner` runs its chain this way).
    ///
    /// - Returns: the value, or how the error ended (ignored, recovered, handled).
    /// - Throws: ``EscalatedError`` when the error goes to the next layer.
    @inlinable
    public func run<Value: Sendable>(
        _ operation: String, metadata: [String: String] = [:],
        attempts body: (_ attempt: inout Int) async throws -> Value
    ) async throws(EscalatedError) -> Outcome<Value> {
        if isInstrumented, let instrument = configuration.instrument {
            return try await instrument.run(layer: layer, operation: operation) {
                () async throws(EscalatedError) -> Outcome<Value> in
                try await runEpisode(operation, metadata: metadata, body)
            }
        }
        return try await runEpisode(operation, metadata: metadata, body)
    }

    /// `run` without its instrument.
    @inlinable
    func runEpisode<Value: Sendable>(
        _ operation: String, metadata: [String: String], _ body: (_ attempt: inout Int) async throws -> Value
    ) async throws(EscalatedError) -> Outcome<Value> {
        var event: ErrorEvent
        var attempt = 1
        do {
            return .success(try await body(&attempt))
        } catch {
            // The usual event (resolved directly, no metadata, no stack) is made here; makeEvent, called from this
            // frame (its stack capture counts on it), makes the others. The caught error moves into the event: no
            // retain, and no release as the catch ends (where the caller's code is not specialized, the compiler
            // does not find that move itself).
            if let resolved = directResolution(of: error, metadata: metadata) {
                event = ErrorEvent(error: consume error, resolved: resolved, layer: layer, operation: operation)
            } else {
                event = makeEvent(consume error, operation: operation, metadata: metadata, inAsyncFunction: true)
            }
            if attempt != 1 { event.reachedAttempt(attempt) }
        }
        while true {
            switch decide(&event) {
            case .ignore:
                finish(event, .ignore)
                return .ignored(event)
            case .handle:
                finish(event, .handle)
                return .handled(event)
            case .escalate(let translated):
                throw escalate(event, as: translated)
            case .recover(let recovery):
                switch recovery {
                case .fallback(let candidate):
                    if let value = candidate as? Value {
                        finish(event, .recover)
                        return .recovered(value, event)
                    }
                    let mismatch = FallbackTypeMismatch(expected: "\(Value.self)")
                    event.recordFailures([HandlerFailure(Recover.self, mismatch)])
                    if !isTerminal { throw escalate(event, as: nil) }
                    finish(event, .handle)
                    return .handled(event)
                case .retry(let delay), .prepareThenRetry(let delay, _):
                    do {
                        if case .prepareThenRetry(_, let prepare) = recovery { try await prepare() }
                        if delay > .zero { try await configuration.clock.sleep(for: delay) }
                        try Task.checkCancellation()
                        attempt = event.attempt + 1
                        let value = try await body(&attempt)
                        finish(event, .recover)
                        return .recovered(value, event)
                    } catch {
                        event.replaceError(
                            with: error, registry: configuration.registry, attempt: max(attempt, event.attempt + 1))
                        if error is CancellationError || Task.isCancelled {
                            // Cancellation stops recovery at once: the episode ends as expected.
                            finish(event, .ignore)
                            return .ignored(event)
                        }
                    }
                }
            case .pass:
                preconditionFailure("decide(_:) never passes")
            }
        }
    }

    /// Decides the fate of an error caught outside ``run(_:metadata:_:)``, where there is no operation to run
    /// again: retry decisions count as passes; a fallback value comes back in `.recovered`.
    ///
    /// The outcome's event holds the error. A catch that does not use the error again can hand it over, so that
    /// the event holds the caught reference itself and no reference count is written to copy it:
    ///
    /// ```swift
    /// } catch {
    ///     switch try pipeline.decide(consume error, operation: "import") { … }
    /// }
    /// ```
    ///
    /// - Throws: ``EscalatedError`` when the error goes to the next layer.
    @inlinable
    public func decide(
        _ error: consuming any Error, operation: String, metadata: [String: String] = [:]
    ) throws(EscalatedError) -> Outcome<any Sendable> {
        if isInstrumented, let instrument = configuration.instrument {
            let error = consume error
            return try instrument.decide(layer: layer, operation: operation) {
                () throws(EscalatedError) -> Outcome<any Sendable> in
                try decideEpisode(error, operation: operation, metadata: metadata)
            }
        }
        return try decideEpisode(error, operation: operation, metadata: metadata)
    }

    /// `decide` without its instrument.
    @inlinable
    func decideEpisode(
        _ error: consuming any Error, operation: String, metadata: [String: String]
    ) throws(EscalatedError) -> Outcome<any Sendable> {
        // As in runEpisode: the usual event made here, the others by makeEvent.
        var event: ErrorEvent
        if let resolved = directResolution(of: error, metadata: metadata) {
            event = ErrorEvent(error: consume error, resolved: resolved, layer: layer, operation: operation)
        } else {
            event = makeEvent(consume error, operation: operation, metadata: metadata, inAsyncFunction: false)
        }
        let decision = decide(&event, canRetry: false)
        switch consume decision {
        case .ignore:
            finish(event, .ignore)
            return .ignored(consume event)
        case .recover(.fallback(let value)):
            finish(event, .recover)
            return .recovered(value, consume event)
        case .escalate(let translated):
            throw escalate(event, as: translated)
        case .handle, .recover, .pass:
            finish(event, .handle)
            return .handled(consume event)
        }
    }

    // MARK: Internals

    /// Descriptor and extractor of an error whose event needs nothing more than them (no metadata, no stack to
    /// capture, not an envelope): the usual case, made by the caller with no call to ``makeEvent``.
    @inlinable
    func directResolution(
        of error: any Error, metadata: [String: String]
    ) -> (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>)? {
        guard needsOnlyResolution(metadata: metadata) else { return nil }
        return configuration.registry.resolveUnlessEscalated(error)
    }

    /// Whether an event with `metadata` needs nothing but its error's resolution: no metadata, no stack to capture.
    @inlinable
    func needsOnlyResolution(metadata: [String: String]) -> Bool { metadata.isEmpty && !capturesStacks }

    // Never inlined, nor is captureStackIfSevere: the capturer skips three frames (its own, that one and this
    // one), so a stack starts at most a frame or two (a protocol witness thunk, `run` or `decide`) before the
    // application's; a describer leaves the framework's frames out when the stack is logged. Called from `run`, the
    // caller is an async function: the address of `anchor`, a local of this frame, tells the capturer which frame
    // is that function's (the first above this one), so it can follow its async callers.
    @usableFromInline @inline(never)
    func makeEvent(
        _ error: consuming any Error, operation: String, metadata: [String: String], inAsyncFunction: Bool
    ) -> ErrorEvent {
        // Read only where a stack may be captured: the path without a capturer does not touch it.
        var anchor: UInt8 = 0
        let registry = configuration.registry
        // When the event needs nothing but its resolution, the caller's `directResolution` has already found the
        // error to be an envelope: it is not resolved a second time.
        let resolved = needsOnlyResolution(metadata: metadata) ? nil : registry.resolveUnlessEscalated(error)
        if let (descriptor, extractor) = resolved {
            // The caller's reference to the error moves into the event: no retain.
            var event = ErrorEvent(
                error: error, descriptor: descriptor, layer: layer, operation: operation, extractor: extractor,
                details: nil)
            if !metadata.isEmpty { event.metadata = metadata }
            let frame = inAsyncFunction ? withUnsafeMutablePointer(to: &anchor) { UInt(bitPattern: $0) } : nil
            captureStackIfSevere(&event, asyncCallerAbove: frame)
            return event
        }
        guard let escalated = error as? EscalatedError else {
            // Another envelope (an integration's wrapper): the event is identified as the error it carries.
            var event = ErrorEvent(
                error: error, layer: layer, operation: operation, metadata: metadata, registry: registry)
            let frame = inAsyncFunction ? withUnsafeMutablePointer(to: &anchor) { UInt(bitPattern: $0) } : nil
            captureStackIfSevere(&event, asyncCallerAbove: frame)
            return event
        }
        // An escalation from the layer below: decide the error it carries, and keep its trail.
        var event = ErrorEvent(
            error: escalated.error, layer: layer, operation: operation, metadata: metadata, registry: registry)
        let lower = escalated.event
        let translated = !(escalated.error is EscalatedError) && lower.identity.code != event.identity.code
        // One update, so the event's details box is built once.
        event.updateDetails { details in
            details.previousErrors = lower.previousErrors + (translated ? [lower.error] : [])
            details.escalations = lower.escalations + 1
            details.escalatedFrom = lower.layer
            details.stack = lower.stack
            details.metadata.merge(lower.metadata) { mine, _ in mine }
        }
        let frame = inAsyncFunction ? withUnsafeMutablePointer(to: &anchor) { UInt(bitPattern: $0) } : nil
        captureStackIfSevere(&event, asyncCallerAbove: frame)
        return event
    }

    @inline(never)
    private func captureStackIfSevere(_ event: inout ErrorEvent, asyncCallerAbove frame: UInt?) {
        guard let capturer = configuration.stackCapturer, event.descriptor.severity >= configuration.stackSeverity,
            event.stack == nil
        else { return }
        event.stack = capturer.captureStack(skippingFrames: 3, asyncCallerAbove: frame)
    }

    /// Asks the handlers, then applies the layer's rules: nobody deciding means escalate (or handle, at the
    /// top); limits on escalations and attempts turn further decisions into the layer's end.
    ///
    /// The handlers read the event in place; it is written only on the rare paths (a handler threw, a limit
    /// was reached).
    @inlinable @inline(__always)
    func decide(_ event: inout ErrorEvent, canRetry: Bool = true) -> ErrorDecision {
        var amendment = DecisionAmendment()
        let decision = rule(on: event, canRetry: canRetry, amendment: &amendment)
        if amendment.isNeeded { amendment.apply(to: &event) }
        return decision
    }

    // The event is borrowed, not `inout`: read through the caller's address, field by field. Read from an `inout`,
    // it would be copied whole first, with 16-byte loads of the fields the caller has just stored 8 bytes at a time:
    // a load the processor cannot forward from those stores, so it would wait for them on every error.
    @inlinable
    func rule(on event: borrowing ErrorEvent, canRetry: Bool, amendment: inout DecisionAmendment) -> ErrorDecision {
        // The layer's end: an inner layer escalates what nobody decided, the terminal one handles it.
        var end: ErrorDecision { isTerminal ? .handle : .escalate(translatedTo: nil) }
        if event.details != nil, event.escalations > configuration.maxEscalations {
            amendment.limit = "escalations"
            return .handle
        }
        let decision = handlers.decide(event, failures: &amendment.failures)
        switch consume decision {
        case .pass:
            return end
        case .ignore:
            return .ignore
        case .handle:
            return .handle
        case .escalate(let translated):
            return isTerminal ? .handle : .escalate(translatedTo: translated)
        case .recover(let recovery):
            // Passed on as it is: a fallback's box is shared, not made again.
            if case .fallback = recovery { return .recover(recovery) }
            if !canRetry || event.attempt >= configuration.maxAttempts {
                if canRetry { amendment.limit = "attempts" }
                return end
            }
            return .recover(recovery)
        }
    }

    /// Whether this is the top layer, whose end is terminal.
    @inlinable
    var isTerminal: Bool { next == nil }

    @usableFromInline
    func escalate(_ event: ErrorEvent, as translated: (any Error)?) -> EscalatedError {
        // `decide` escalates only where there is a next layer.
        let target = next ?? layer
        var event = event
        event.escalatedTo = target
        finish(event, .escalate)
        return EscalatedError(error: translated ?? event.error, event: event, target: target)
    }

    // Takes the event borrowed and returns nothing: the caller moves the event into its outcome, so finishing
    // costs no copy of it (a copy retains and later releases every reference the event holds).
    @usableFromInline
    func finish(_ event: borrowing ErrorEvent, _ disposition: Disposition) {
        FlightRecorder.record(event, disposition, layer: layer)
        if !hasObservers { return }
        // The array's elements read in place as unretained references (the same bits): the array keeps them alive,
        // and no reference count that every task deciding through this pipeline shares is written.
        observerBoxes.withUnsafeBufferPointer { boxes in
            boxes.withMemoryRebound(to: Unmanaged<ObserverBox>.self) { references in
                for reference in references { reference._withUnsafeGuaranteedRef { $0.observe(event, disposition) } }
            }
        }
    }
}

/// What a pipeline's `rule(on:canRetry:amendment:)` found to write on the event: what the handlers threw, and
/// which limit turned a decision into the layer's end. Written on the event by its caller, on these rare paths only.
@usableFromInline
struct DecisionAmendment {
    @usableFromInline var failures = HandlerFailures()
    @usableFromInline var limit: String?

    @inlinable init() {}

    @inlinable var isNeeded: Bool { limit != nil || !failures.isEmpty }

    @usableFromInline
    func apply(to event: inout ErrorEvent) {
        if !failures.isEmpty { event.recordFailures(failures.all) }
        if let limit { event.metadata["limit"] = limit }
    }
}

/// An observer, called through a class's method rather than through its existential.
@usableFromInline
class ObserverBox: @unchecked Sendable {
    // @unchecked: a non-final class cannot be checked; the only subclass holds one `let` of a Sendable type.
    @usableFromInline
    func observe(_ event: borrowing ErrorEvent, _ disposition: Disposition) {}
}

final class TypedObserverBox<Observer: ErrorObserver>: ObserverBox, @unchecked Sendable {
    // @unchecked: `observer` is a `let` of a Sendable type.
    let observer: Observer
    init(_ observer: Observer) { self.observer = observer }

    override func observe(_ event: borrowing ErrorEvent, _ disposition: Disposition) {
        observer.observe(event, disposition: disposition)
    }
}

/// The metrics observer's box: it calls the observer's own method, with no generic box and no witness between.
final class MetricsObserverBox: ObserverBox, @unchecked Sendable {
    // @unchecked: `observer` is a `let` of a Sendable type.
    let observer: MetricsObserver
    init(_ observer: MetricsObserver) { self.observer = observer }

    override func observe(_ event: borrowing ErrorEvent, _ disposition: Disposition) {
        observer.count(event, disposition)
    }
}

/// `observer` in a box of its dynamic type.
func makeObserverBox(_ observer: any ErrorObserver) -> ObserverBox {
    if let metrics = observer as? MetricsObserver { return MetricsObserverBox(metrics) }
    func box<Observer: ErrorObserver>(_ observer: Observer) -> ObserverBox { TypedObserverBox(observer) }
    return box(observer)
}

/// A fallback value that is not of the operation's result type.
@usableFromInline
struct FallbackTypeMismatch: Error, CustomStringConvertible {
    let expected: String
    @usableFromInline init(expected: String) { self.expected = expected }
    @usableFromInline var description: String { "fallback value is not a \(expected)" }
}
