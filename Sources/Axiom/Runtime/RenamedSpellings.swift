// The spellings the framework's first README used, kept so that code written against it still compiles, with a
// warning that names the new spelling.

extension OperationMiddleware {
    /// Runs one call through this stage, as the first README spelled it. (A stage of one's own implements
    /// ``run(context:next:)``: a requirement cannot keep two names.)
    @available(*, deprecated, renamed: "run(context:next:)")
    @inlinable
    nonisolated(nonsending) public func handle<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        try await run(context: context, next: next)
    }
}
