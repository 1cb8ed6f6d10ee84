/// Drops expected errors: a cancelled operation, a wallet the user never created.
public struct Ignore: ErrorHandler {
    /// What it takes.
    public let match: ErrorMatch

    /// Ignores matching events.
    public init(_ match: ErrorMatch) { self.match = match }
    /// Ignores errors of a type.
    public init<E: Error>(_ type: E.Type) { self.match = .type(type) }

    @inlinable
    public func decide(_ event: ErrorEvent) -> ErrorDecision {
        match.matches(event) ? .ignore : .pass
    }

    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Ignore { Ignore(match.bound(to: registry)) }
}

/// Makes an operation succeed after all: retry, prepare then retry, or a fallback value.
public struct Recover: ErrorHandler {
    /// How to recover from one event; nil when this strategy has nothing more to try.
    public struct Strategy: Sendable {
        let plan: @Sendable (ErrorEvent) throws -> Recovery?

        /// A custom strategy.
        public init(_ plan: @escaping @Sendable (ErrorEvent) throws -> Recovery?) { self.plan = plan }

        /// Retry while `policy` allows, waiting its backoff (or the error's `Retry-After`, if the policy
        /// honours it).
        public static func retry(_ policy: RetryPolicy) -> Strategy {
            Strategy { event in
                guard policy.allowsRetry(after: event.attempt) else { return nil }
                return .retry(after: Recover.wait(policy, event))
            }
        }

        /// Retry as the error's descriptor says; nothing when it is not retryable.
        public static let descriptorPolicy = Strategy { event in
            guard let policy = event.descriptor.retry, policy.allowsRetry(after: event.attempt) else { return nil }
            return .retry(after: Recover.wait(policy, event))
        }

        /// Run `prepare` (refresh a token, reconnect), then retry, at most `maxAttempts` attempts in all.
        public static func prepareThenRetry(
            maxAttempts: Int, after delay: Duration = .zero, _ prepare: @escaping @Sendable () async throws -> Void
        ) -> Strategy {
            Strategy { event in
                event.attempt < maxAttempts ? .prepareThenRetry(after: delay, prepare: prepare) : nil
            }
        }

        /// Use a fixed value as the result.
        public static func fallback(_ value: some Sendable) -> Strategy {
            Strategy { _ in .fallback(value) }
        }
    }

    /// What it takes.
    public let match: ErrorMatch
    /// How it recovers.
    public let strategy: Strategy

    /// Recovers matching events with a strategy.
    public init(_ match: ErrorMatch, _ strategy: Strategy) {
        self.match = match
        self.strategy = strategy
    }

    @inlinable
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision {
        guard match.matches(event) else { return .pass }
        return try plan(event)
    }

    @usableFromInline
    func plan(_ event: ErrorEvent) throws -> ErrorDecision {
        guard let recovery = try strategy.plan(event) else { return .pass }
        return .recover(recovery)
    }

    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Recover { Recover(match.bound(to: registry), strategy) }

    static func wait(_ policy: RetryPolicy, _ event: ErrorEvent) -> Duration {
        if policy.honorsRetryAfter, let retryAfter = event.identity.retryAfter { return retryAfter }
        return policy.delay(forRetry: event.attempt)
    }
}

/// Passes errors this layer cannot handle to the next one, maybe translated.
public struct Escalate: ErrorHandler {
    /// What it takes.
    public let match: ErrorMatch
    let translate: (@Sendable (ErrorEvent) -> any Error)?

    /// Escalates matching events, translating them when `translate` is given.
    public init(_ match: ErrorMatch, translate: (@Sendable (ErrorEvent) -> any Error)? = nil) {
        self.match = match
        self.translate = translate
    }

    /// Escalates matching events as `error`.
    public init(_ match: ErrorMatch, as error: some Error) {
        self.init(match, translate: { _ in error })
    }

    @inlinable
    public func decide(_ event: ErrorEvent) -> ErrorDecision {
        guard match.matches(event) else { return .pass }
        return escalation(event)
    }

    @usableFromInline
    func escalation(_ event: ErrorEvent) -> ErrorDecision { .escalate(translatedTo: translate?(event)) }

    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Escalate {
        Escalate(match.bound(to: registry), translate: translate)
    }
}

/// The last line: takes what nobody else did, runs its action (present, report), and ends the episode: the
/// fate `handle`, which ends an error as `handled`.
public struct Handle: ErrorHandler {
    /// What it takes.
    public let match: ErrorMatch
    let action: (@Sendable (ErrorEvent) throws -> Void)?
    @usableFromInline let hasAction: Bool

    /// Handles matching events (every event by default), running `action` for each.
    public init(_ match: ErrorMatch = .any, action: (@Sendable (ErrorEvent) throws -> Void)? = nil) {
        self.match = match
        self.action = action
        self.hasAction = action != nil
    }

    @inlinable
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision {
        guard match.matches(event) else { return .pass }
        if hasAction { try act(event) }
        return .handle
    }

    @usableFromInline
    func act(_ event: ErrorEvent) throws { try action?(event) }

    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Handle { Handle(match.bound(to: registry), action: action) }
}

/// Follows each error's descriptor: its disposition, its retry policy, its escalation code.
///
/// This is what lets an application handle a domain it has never seen, once a plugin registers it.
/// A `recover` descriptor whose retries are used up passes, so a later handler (or the layer's end) decides.
/// A `default` descriptor passes too: the last line belongs to the terminal layer, so an inner layer
/// escalates it and the application's layer handles it.
public struct FollowDescriptor: ErrorHandler {
    /// Creates the handler.
    public init() {}

    public func decide(_ event: ErrorEvent) -> ErrorDecision {
        let descriptor = event.descriptor
        switch descriptor.disposition {
        case .ignore:
            return .ignore
        case .recover:
            guard let policy = descriptor.retry, policy.allowsRetry(after: event.attempt) else { return .pass }
            return .recover(.retry(after: Recover.wait(policy, event)))
        case .escalate:
            guard let target = descriptor.escalation else { return .escalate(translatedTo: nil) }
            return .escalate(
                translatedTo: DomainError(
                    domain: target.domain, code: target.code, message: "escalated from \(descriptor.code)"))
        case .handle:
            // The last line is the terminal layer's: an inner layer passes, so its pipeline escalates.
            return .pass
        }
    }
}

/// Two handlers in order: the second is asked only when the first passes.
@_documentation(visibility: internal)
public struct HandlerPair<First: ErrorHandler, Second: ErrorHandler>: ErrorHandler {
    @usableFromInline let first: First
    @usableFromInline let second: Second

    @inlinable
    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    public func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }

    @_documentation(visibility: internal)
    @inlinable @inline(__always)
    public func _dispatch(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        switch first._dispatch(event, failures: &failures) {
        case .pass: second._dispatch(event, failures: &failures)
        case let decision: decision
        }
    }

    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Self {
        HandlerPair(first._bound(to: registry), second._bound(to: registry))
    }
}

/// No handler: every event passes.
public struct PassAll: ErrorHandler {
    /// Creates the empty handler.
    public init() {}
    public func decide(_ event: ErrorEvent) -> ErrorDecision { .pass }
}

/// A handler present or not (from an `if` in a builder).
@_documentation(visibility: internal)
public struct OptionalHandler<Wrapped: ErrorHandler>: ErrorHandler {
    let wrapped: Wrapped?
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }
    @_documentation(visibility: internal)
    public func _dispatch(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        wrapped?._dispatch(event, failures: &failures) ?? .pass
    }
    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Self { OptionalHandler(wrapped: wrapped?._bound(to: registry)) }
}

/// One of two handlers (from an `if`/`else` in a builder).
@_documentation(visibility: internal)
public enum EitherHandler<First: ErrorHandler, Second: ErrorHandler>: ErrorHandler {
    case first(First)
    case second(Second)
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }
    @_documentation(visibility: internal)
    public func _dispatch(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        switch self {
        case .first(let handler): handler._dispatch(event, failures: &failures)
        case .second(let handler): handler._dispatch(event, failures: &failures)
        }
    }
    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Self {
        switch self {
        case .first(let handler): .first(handler._bound(to: registry))
        case .second(let handler): .second(handler._bound(to: registry))
        }
    }
}

/// A handler behind an existential, for storing chains whose type varies at run time.
public struct AnyErrorHandler: ErrorHandler {
    let base: any ErrorHandler
    /// Wraps a handler.
    public init(_ base: some ErrorHandler) { self.base = base }
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision { try base.decide(event) }
    @_documentation(visibility: internal)
    public func _dispatch(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        base._dispatch(event, failures: &failures)
    }
    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Self {
        func bind<H: ErrorHandler>(_ handler: H) -> AnyErrorHandler { AnyErrorHandler(handler._bound(to: registry)) }
        return bind(base)
    }
}

/// Handlers from a `for` loop in a builder, asked in order; the first that does not pass decides.
@_documentation(visibility: internal)
public struct HandlerArray<Element: ErrorHandler>: ErrorHandler {
    @usableFromInline let handlers: [Element]

    @inlinable
    init(_ handlers: [Element]) { self.handlers = handlers }

    public func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }

    @_documentation(visibility: internal)
    @inlinable
    public func _dispatch(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        for handler in handlers {
            switch handler._dispatch(event, failures: &failures) {
            case .pass: continue
            case let decision: return decision
            }
        }
        return .pass
    }

    @_documentation(visibility: internal)
    public func _bound(to registry: ErrorRegistry) -> Self { HandlerArray(handlers.map { $0._bound(to: registry) }) }
}

/// Composes handlers in order into one statically typed chain: no existential per handler. `if`, `if`/`else`
/// and `for` work inside it.
@resultBuilder
public enum ErrorHandlerBuilder {
    @_documentation(visibility: internal)
    public static func buildExpression<H: ErrorHandler>(_ handler: H) -> H { handler }
    @_documentation(visibility: internal)
    public static func buildPartialBlock<H: ErrorHandler>(first: H) -> H { first }
    @_documentation(visibility: internal)
    public static func buildPartialBlock<A: ErrorHandler, B: ErrorHandler>(accumulated: A, next: B) -> HandlerPair<A, B>
    {
        HandlerPair(accumulated, next)
    }
    @_documentation(visibility: internal)
    public static func buildBlock() -> PassAll { PassAll() }
    @_documentation(visibility: internal)
    public static func buildOptional<H: ErrorHandler>(_ handler: H?) -> OptionalHandler<H> {
        OptionalHandler(wrapped: handler)
    }
    @_documentation(visibility: internal)
    public static func buildEither<A: ErrorHandler, B: ErrorHandler>(first: A) -> EitherHandler<A, B> { .first(first) }
    @_documentation(visibility: internal)
    public static func buildEither<A: ErrorHandler, B: ErrorHandler>(second: B) -> EitherHandler<A, B> {
        .second(second)
    }
    @_documentation(visibility: internal)
    public static func buildArray<H: ErrorHandler>(_ handlers: [H]) -> HandlerArray<H> { HandlerArray(handlers) }
}

/// The former name of ``Handle``: the fourth fate is called `handle` everywhere (a descriptor's disposition, a
/// handler's decision, and `handled` as an episode's end).
@available(*, deprecated, renamed: "Handle")
public typealias Default = Handle
