/// Two stages in order: the first one's `next` is the second one.
@usableFromInline
struct MiddlewarePair<First: OperationMiddleware, Second: OperationMiddleware>: OperationMiddleware {
    /// The outer stage.
    @usableFromInline let first: First
    /// The inner stage.
    @usableFromInline let second: Second

    /// Nests `second` inside `first`.
    @inlinable
    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable @inline(__always)
    nonisolated(nonsending) func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await first.run(context: context) { context in
            try await second.run(context: context, next: next)
        }
    }
}

/// A stage present or not (from an `if` in a chain builder).
@usableFromInline
struct OptionalMiddleware<Wrapped: OperationMiddleware>: OperationMiddleware {
    /// The stage, when present.
    @usableFromInline let wrapped: Wrapped?

    @inlinable
    init(_ wrapped: Wrapped?) { self.wrapped = wrapped }

    @inlinable @inline(__always)
    nonisolated(nonsending) func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        guard let wrapped else { return try await next(context) }
        return try await wrapped.run(context: context, next: next)
    }
}

/// One of two stages (from an `if`/`else` in a chain builder).
@_documentation(visibility: internal)
public enum EitherMiddleware<First: OperationMiddleware, Second: OperationMiddleware>: OperationMiddleware {
    case first(First)
    case second(Second)

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        switch self {
        case .first(let stage): try await stage.run(context: context, next: next)
        case .second(let stage): try await stage.run(context: context, next: next)
        }
    }
}

/// Stages from a `for` loop in a chain builder, the first one outermost.
@usableFromInline
struct MiddlewareArray<Element: OperationMiddleware>: OperationMiddleware {
    /// The stages, outermost first.
    @usableFromInline let stages: [Element]

    @inlinable
    init(_ stages: [Element]) { self.stages = stages }

    @inlinable
    nonisolated(nonsending) func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await run(from: 0, context: context, next: next)
    }

    @inlinable
    nonisolated(nonsending) func run<Output: Sendable>(
        from index: Int, context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        guard index < stages.count else { return try await next(context) }
        return try await stages[index].run(context: context) { context in
            try await run(from: index + 1, context: context, next: next)
        }
    }
}

/// Composes stages, outermost first, into one statically typed chain: no existential per stage. `if`,
/// `if`/`else` and `for` work inside it.
///
/// ```swift
/// let chain = OperationChain {
///     CapabilityStage(validator, requiring: ["network"])
///     TimeoutStage(.seconds(180), clock: clock)  // total: longer than every wait the retry may make
///     RetryStage(configuration: .init(registry: registry), clock: clock)
///     CircuitBreakerStage(breakers.breaker(for: "wallet"))
///     AttemptTimeoutStage(.seconds(10), clock: clock)  // per attempt
/// }
/// ```
///
/// The standard order (Microsoft's resilience pipeline): limiter → total timeout → retry → breaker → attempt
/// timeout. The breaker then sees every attempt, and the per-attempt timeout gives each one its own limit.
@resultBuilder
public enum OperationChainBuilder {
    @_documentation(visibility: internal)
    @inlinable
    public static func buildExpression<M: OperationMiddleware>(_ stage: M) -> M { stage }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildPartialBlock<M: OperationMiddleware>(first: M) -> M { first }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildPartialBlock<A: OperationMiddleware, B: OperationMiddleware>(
        accumulated: A, next: B
    ) -> some OperationMiddleware {
        MiddlewarePair(accumulated, next)
    }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildBlock() -> some OperationMiddleware { PassThrough() }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildOptional<M: OperationMiddleware>(_ stage: M?) -> some OperationMiddleware {
        OptionalMiddleware(stage)
    }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildEither<A: OperationMiddleware, B: OperationMiddleware>(first: A) -> EitherMiddleware<A, B> {
        .first(first)
    }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildEither<A: OperationMiddleware, B: OperationMiddleware>(second: B) -> EitherMiddleware<A, B>
    {
        .second(second)
    }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildArray<M: OperationMiddleware>(_ stages: [M]) -> some OperationMiddleware {
        MiddlewareArray(stages)
    }
}

/// A chain of stages built with ``OperationChainBuilder``; itself a stage.
public struct OperationChain<Stages: OperationMiddleware>: OperationMiddleware {
    /// The nested stages.
    @usableFromInline package let stages: Stages

    /// Builds a chain, outermost stage first.
    @inlinable
    public init(@OperationChainBuilder _ build: () -> Stages) { self.stages = build() }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await stages.run(context: context, next: next)
    }
}
