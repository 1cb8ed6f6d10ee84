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
///   run(name, work) ─▶ Capability ─▶ Timeout ─▶ Retry ─▶ CircuitBreaker ─▶ Timeout ─▶ work()
///                        │ next       (total)│     │ next    │ next     (attempt)│
///   value / error ◀──────┴───────────────────┴─────┴─────────┴──────────────────┘
/// ```
///
/// A stage that runs `next` again (retry) raises `context.attempt`; `OperationRunner` hands the last attempt
/// number to the error event, so stages and handlers count the same attempts.
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

/// A stage that passes every call straight on: the empty chain.
@usableFromInline
struct PassThrough: OperationMiddleware {
    /// Creates the stage.
    @inlinable
    init() {}

    @inlinable @inline(__always)
    nonisolated(nonsending) func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await next(context)
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
