/// Two handlers in order: the second is asked only when the first passes.
@usableFromInline
struct HandlerPair<First: ErrorHandler, Second: ErrorHandler>: ErrorHandler {
    @usableFromInline let first: First
    @usableFromInline let second: Second

    @inlinable
    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @usableFromInline func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }

    @inlinable @inline(__always)
    func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        switch first.decide(event, failures: &failures) {
        case .pass: second.decide(event, failures: &failures)
        case let decision: decision
        }
    }

    @usableFromInline func bound(to registry: ErrorRegistry) -> Self {
        HandlerPair(first.bound(to: registry), second.bound(to: registry))
    }
}

/// No handler: every event passes.
@usableFromInline
struct PassAll: ErrorHandler {
    /// Creates the empty handler.
    @inlinable
    init() {}
    @inlinable
    func decide(_ event: ErrorEvent) -> ErrorDecision { .pass }
}

/// A handler present or not (from an `if` in a builder).
@usableFromInline
struct OptionalHandler<Wrapped: ErrorHandler>: ErrorHandler {
    @usableFromInline let wrapped: Wrapped?

    @inlinable
    init(wrapped: Wrapped?) { self.wrapped = wrapped }

    @usableFromInline func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }
    @usableFromInline func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        wrapped?.decide(event, failures: &failures) ?? .pass
    }
    @usableFromInline func bound(to registry: ErrorRegistry) -> Self {
        OptionalHandler(wrapped: wrapped?.bound(to: registry))
    }
}

/// One of two handlers (from an `if`/`else` in a builder).
@_documentation(visibility: internal)
public enum EitherHandler<First: ErrorHandler, Second: ErrorHandler>: ErrorHandler {
    case first(First)
    case second(Second)
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }
    @_documentation(visibility: internal)
    public func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        switch self {
        case .first(let handler): handler.decide(event, failures: &failures)
        case .second(let handler): handler.decide(event, failures: &failures)
        }
    }
    @_documentation(visibility: internal)
    public func bound(to registry: ErrorRegistry) -> Self {
        switch self {
        case .first(let handler): .first(handler.bound(to: registry))
        case .second(let handler): .second(handler.bound(to: registry))
        }
    }
}

/// Handlers from a `for` loop in a builder, asked in order; the first that does not pass decides.
@usableFromInline
struct HandlerArray<Element: ErrorHandler>: ErrorHandler {
    @usableFromInline let handlers: [Element]

    @inlinable
    init(_ handlers: [Element]) { self.handlers = handlers }

    @usableFromInline func decide(_ event: ErrorEvent) throws -> ErrorDecision { try decideThroughDispatch(event) }

    @inlinable
    func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        for handler in handlers {
            switch handler.decide(event, failures: &failures) {
            case .pass: continue
            case let decision: return decision
            }
        }
        return .pass
    }

    @usableFromInline func bound(to registry: ErrorRegistry) -> Self {
        HandlerArray(handlers.map { $0.bound(to: registry) })
    }
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
    @inlinable
    public static func buildPartialBlock<A: ErrorHandler, B: ErrorHandler>(accumulated: A, next: B) -> some ErrorHandler
    {
        HandlerPair(accumulated, next)
    }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildBlock() -> some ErrorHandler { PassAll() }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildOptional<H: ErrorHandler>(_ handler: H?) -> some ErrorHandler {
        OptionalHandler(wrapped: handler)
    }
    @_documentation(visibility: internal)
    public static func buildEither<A: ErrorHandler, B: ErrorHandler>(first: A) -> EitherHandler<A, B> { .first(first) }
    @_documentation(visibility: internal)
    public static func buildEither<A: ErrorHandler, B: ErrorHandler>(second: B) -> EitherHandler<A, B> {
        .second(second)
    }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildArray<H: ErrorHandler>(_ handlers: [H]) -> some ErrorHandler { HandlerArray(handlers) }
}
