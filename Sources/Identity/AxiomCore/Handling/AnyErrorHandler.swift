/// A handler behind an existential, for storing chains whose type varies at run time.
public struct AnyErrorHandler: ErrorHandler {
    let base: any ErrorHandler
    /// Wraps a handler.
    public init(_ base: some ErrorHandler) { self.base = base }
    public func decide(_ event: ErrorEvent) throws -> ErrorDecision { try base.decide(event) }
    @_documentation(visibility: internal)
    public func decide(_ event: ErrorEvent, failures: inout HandlerFailures) -> ErrorDecision {
        base.decide(event, failures: &failures)
    }
    @_documentation(visibility: internal)
    public func bound(to registry: ErrorRegistry) -> Self {
        func bind<H: ErrorHandler>(_ handler: H) -> AnyErrorHandler { AnyErrorHandler(handler.bound(to: registry)) }
        return bind(base)
    }
}
