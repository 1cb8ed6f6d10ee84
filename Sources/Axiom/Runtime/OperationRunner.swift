/// Runs a client's operations through a middleware chain, then hands errors that leave it to the layer's handlers.
///
/// This is the whole path of an operation: capability validation, circuit breaker, timeout and retry (the
/// chain), then the client layer's ``ErrorPipeline`` for whatever still fails. On the happy path it adds no
/// allocation and no existential.
///
/// ```swift
/// let runner = OperationRunner(chain: chain, pipeline: ErrorPipeline(layer: .client, escalatesTo: .context) {
///     FollowDescriptor()
/// })
/// let outcome = try await runner.run("payInvoice") { try await wallet.pay(invoice) }
/// ```
public struct OperationRunner<Chain: OperationMiddleware, Handlers: ErrorHandler>: Sendable {
    /// The middleware stages.
    public let chain: Chain
    /// The layer's handlers.
    public let pipeline: ErrorPipeline<Handlers>

    /// Pairs a chain with a layer's handlers.
    public init(chain: Chain, pipeline: ErrorPipeline<Handlers>) {
        self.chain = chain
        self.pipeline = pipeline
    }

    /// Runs `work` through the chain and the handlers.
    ///
    /// - Returns: the value, or how the error ended (ignored, recovered, handled).
    /// - Throws: ``EscalatedError`` when the handlers pass the error to the next layer.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Value: Sendable>(
        _ name: String, _ work: nonisolated(nonsending) @Sendable () async throws -> Value
    ) async throws(EscalatedError) -> Outcome<Value> {
        // The first attempt runs here, on the caller's executor like the stages (`nonisolated(nonsending)`):
        // the pipeline's `run` is a plain nonisolated async function, so going through it on the happy path
        // would hop executors. An error goes to the pipeline exactly as if its `run` had caught it: its body
        // rethrows the caught error once, and any recovery the handlers decide runs the whole chain again.
        let firstError: any Error
        do {
            return .success(
                try await chain.run(context: OperationContext(name: name)) { _ in try await work() })
        } catch {
            firstError = error
        }
        var pending: (any Error)? = firstError
        return try await pipeline.run(name) {
            if let error = pending {
                pending = nil
                throw error
            }
            return try await chain.run(context: OperationContext(name: name)) { _ in try await work() }
        }
    }
}
