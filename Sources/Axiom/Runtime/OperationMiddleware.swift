/// What every stage of an operation knows about the call it is passing on.
public struct OperationContext: Sendable {
    /// The operation's name, used in logs, metrics and error events.
    public var name: String
    /// Which attempt this is, from 1. The retry stage raises it for the stages after it.
    public var attempt: Int

    /// Creates the context of a first attempt.
    @inlinable
    public init(name: String, attempt: Int = 1) {
        self.name = name
        self.attempt = attempt
    }
}

/// One stage of the operation chain: it gets the call's context and decides whether and how to call `next`.
///
/// A stage may return without calling `next` (a capability is missing, the breaker is open), call it once
/// (timeout), or several times (retry). It must not keep `next` beyond the call.
///
/// The method is generic so one chain serves operations of any result type; mark an implementation
/// `@inlinable` when it is used across modules on a hot path, so it specializes. Stages and `next` are
/// `nonisolated(nonsending)`: they run on the caller's executor, so passing from stage to stage costs no
/// executor hop (hops were about 15 % of the chain's profile). `next` is `@Sendable` so a stage may run it in a
/// child task (the timeout stage does).
///
/// How an operation flows through a chain built with `OperationChainBuilder`:
///
/// ```
///   run(name, work) ─▶ CapabilityStage ─▶ CircuitBreakerStage ─▶ TimeoutStage ─▶ RetryStage ─▶ work()
///                           │ next             │ next                │ next          │ next
///   value / error ◀─────────┴──────────────────┴─────────────────────┴───────────────┘
/// ```
///
/// Each stage is a value; the builder nests them into `MiddlewarePair<MiddlewarePair<A, B>, C>`, so the whole
/// chain is one concrete type and a call goes from stage to stage without an existential. Errors that leave
/// the chain go to the layer's `ErrorPipeline` (see `OperationRunner`).
public protocol OperationMiddleware: Sendable {
    /// Runs one call: passes it on with `next` (once, several times, or not at all).
    nonisolated(nonsending) func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output
}

extension OperationMiddleware {
    /// Runs `work` through this chain with a fresh context named `name`.
    @inlinable
    nonisolated(nonsending) public func run<Output: Sendable>(
        _ name: String, _ work: nonisolated(nonsending) @Sendable () async throws -> Output
    ) async throws -> Output {
        try await run(context: OperationContext(name: name)) { _ in try await work() }
    }
}

/// Two stages in order: the first one's `next` is the second one.
@_documentation(visibility: internal)
public struct MiddlewarePair<First: OperationMiddleware, Second: OperationMiddleware>: OperationMiddleware {
    /// The outer stage.
    public let first: First
    /// The inner stage.
    public let second: Second

    /// Nests `second` inside `first`.
    @inlinable
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await first.run(context: context) { context in
            try await second.run(context: context, next: next)
        }
    }
}

/// A stage that passes every call straight on: the empty chain.
public struct PassThrough: OperationMiddleware {
    /// Creates the stage.
    @inlinable
    public init() {}

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await next(context)
    }
}

/// A stage present or not (from an `if` in a chain builder).
@_documentation(visibility: internal)
public struct OptionalMiddleware<Wrapped: OperationMiddleware>: OperationMiddleware {
    /// The stage, when present.
    public let wrapped: Wrapped?

    @inlinable
    init(_ wrapped: Wrapped?) { self.wrapped = wrapped }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
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

/// A stage behind an existential, for chains whose shape is only known at run time. Costs a dynamic call.
public struct AnyOperationMiddleware: OperationMiddleware {
    @usableFromInline
    let base: any OperationMiddleware

    /// Wraps a stage.
    public init(_ base: some OperationMiddleware) { self.base = base }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await base.run(context: context, next: next)
    }
}

/// Stages from a `for` loop in a chain builder, the first one outermost.
@_documentation(visibility: internal)
public struct MiddlewareArray<Element: OperationMiddleware>: OperationMiddleware {
    /// The stages, outermost first.
    public let stages: [Element]

    @inlinable
    init(_ stages: [Element]) { self.stages = stages }

    @inlinable
    nonisolated(nonsending) public func run<Output: Sendable>(
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
///     CircuitBreakerStage(breakers.breaker(for: "wallet"))
///     TimeoutStage(.seconds(30), clock: clock)
///     RetryStage(registry: registry, clock: clock)
/// }
/// ```
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
    ) -> MiddlewarePair<A, B> {
        MiddlewarePair(accumulated, next)
    }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildBlock() -> PassThrough { PassThrough() }
    @_documentation(visibility: internal)
    @inlinable
    public static func buildOptional<M: OperationMiddleware>(_ stage: M?) -> OptionalMiddleware<M> {
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
    public static func buildArray<M: OperationMiddleware>(_ stages: [M]) -> MiddlewareArray<M> {
        MiddlewareArray(stages)
    }
}

/// A chain of stages built with ``OperationChainBuilder``; itself a stage.
public struct OperationChain<Stages: OperationMiddleware>: OperationMiddleware {
    /// The nested stages.
    public let stages: Stages

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
