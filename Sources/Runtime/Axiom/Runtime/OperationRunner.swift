import Synchronization

/// Runs a client's operations through a middleware chain, then hands errors that leave it to the layer's handlers.
///
/// This is the whole path of an operation: the chain (capability validation, timeouts, retry, circuit breaker),
/// then the client layer's `ErrorPipeline` for whatever still fails. On the happy path it adds no allocation
/// and no existential.
///
/// One attempt count per operation: the error event carries the attempt number the chain's stages saw last, and
/// a recovery runs the chain again from the next one. A `RetryStage` in the chain and a `FollowDescriptor` in the
/// pipeline applying a descriptor's policy of `maxAttempts` 3 make 3 calls in all, not 3 × 3.
///
/// ```swift
/// let runner = OperationRunner(chain: chain, pipeline: ErrorPipeline(layer: .client, escalatesTo: .context) {
///     FollowDescriptor()
/// })
/// let outcome = try await runner.run("payInvoice") { try await wallet.pay(invoice) }
/// ```
public struct OperationRunner<Chain: OperationMiddleware, Handlers: ErrorHandler>: Sendable {
    /// The middleware stages.
    @usableFromInline package let chain: Chain
    /// The layer's handlers.
    @usableFromInline package let pipeline: ErrorPipeline<Handlers>

    /// Pairs a chain with a layer's handlers.
    public init(chain: Chain, pipeline: ErrorPipeline<Handlers>) {
        self.chain = chain
        self.pipeline = pipeline
    }

    /// Runs `work` through the chain and the handlers.
    ///
    /// - Returns: the value, or how the error ended (ignored, recovered, handled).
    /// - Throws: `EscalatedError` when the handlers pass the error to the next layer.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Value: Sendable>(
        _ name: String, _ work: nonisolated(nonsending) @Sendable () async throws -> Value
    ) async throws(EscalatedError) -> Outcome<Value> {
        // The first attempt runs here, on the caller's executor like the stages (`nonisolated(nonsending)`):
        // the pipeline's `run` is a plain nonisolated async function, so going through it on the happy path
        // would hop executors. An error goes to the pipeline exactly as if its `run` had caught it: its body
        // rethrows the caught error once, and any recovery the handlers decide runs the whole chain again.
        //
        // One attempt count per operation: the innermost `next` notes the attempt number the stages gave it (a
        // retry stage raises it), the pipeline's event carries the last one, and a recovery runs the chain again
        // from the next number, so a retry stage and a handler applying the same policy share its
        // `maxAttempts`. The note is a relaxed store into a local atomic: no allocation.
        let reached = Atomic<Int>(1)
        let firstError: any Error
        do {
            return .success(
                try await chain.run(context: OperationContext(name: name)) { context in
                    reached.store(context.attempt, ordering: .relaxed)
                    return try await work()
                })
        } catch {
            firstError = error
        }
        var pending: (any Error)? = firstError
        return try await pipeline.run(
            name,
            attempts: { attempt in
                if let error = pending {
                    pending = nil
                    attempt = reached.load(ordering: .relaxed)
                    throw error
                }
                reached.store(attempt, ordering: .relaxed)
                defer { attempt = reached.load(ordering: .relaxed) }
                return try await chain.run(context: OperationContext(name: name, attempt: attempt)) { context in
                    reached.store(context.attempt, ordering: .relaxed)
                    return try await work()
                }
            })
    }
}
