// The spellings the framework's first README used, kept so that code written against it still compiles, with a
// warning that names the new spelling. The fourth fate is `handle` everywhere (the fate, the handler, the decision
// and the resolution share one word); "default" is what it was called first.

extension Disposition {
    /// The last line, as the first README spelled it.
    @available(*, deprecated, renamed: "handle")
    public static var `default`: Disposition { .handle }
}

extension ErrorPipeline {
    /// Decides an error caught outside ``run(_:metadata:_:)``, as the first README spelled it.
    @available(*, deprecated, renamed: "decide(_:operation:metadata:)")
    @inlinable
    public func handle(
        _ error: consuming any Error, operation: String, metadata: [String: String] = [:]
    ) throws(EscalatedError) -> ErrorOutcome {
        try decide(error, operation: operation, metadata: metadata)
    }
}
