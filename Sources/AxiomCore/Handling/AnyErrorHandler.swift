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
