/// Code that runs around every episode of a pipeline and sees how it ended: where an integration puts what must
/// surround an operation (a tracing span) or needs its final result (a span's status, a request's status).
///
/// A pipeline with an instrument (`PipelineConfiguration`'s `instrument`) calls ``run(layer:operation:_:)``
/// around each ``ErrorPipeline/run(_:metadata:_:)`` and ``decide(layer:operation:_:)`` around each
/// ``ErrorPipeline/decide(_:operation:metadata:)``. The instrument calls `body` exactly once and returns what
/// it returns, or lets its ``EscalatedError`` through: an escalation is not final, the next layer decides. The
/// outcome it sees is final (`success`, `recovered`, `ignored`, `handled`), and the error's observers have
/// already seen it. Both run in the caller's task, so task-local values (a `ServiceContext`) are the caller's.
///
/// Both methods have defaults that only call `body`: implement the ones you need.
public protocol PipelineInstrument: Sendable {
    /// Runs an operation's episode: `body` runs the operation and decides its error, if any.
    func run<Value: Sendable>(
        layer: Layer, operation: String, _ body: () async throws(EscalatedError) -> Outcome<Value>
    ) async throws(EscalatedError) -> Outcome<Value>

    /// Runs the decision about an error caught outside `run`.
    func decide(
        layer: Layer, operation: String, _ body: () throws(EscalatedError) -> Outcome<any Sendable>
    ) throws(EscalatedError) -> Outcome<any Sendable>
}

extension PipelineInstrument {
    public func run<Value: Sendable>(
        layer: Layer, operation: String, _ body: () async throws(EscalatedError) -> Outcome<Value>
    ) async throws(EscalatedError) -> Outcome<Value> {
        try await body()
    }

    public func decide(
        layer: Layer, operation: String, _ body: () throws(EscalatedError) -> Outcome<any Sendable>
    ) throws(EscalatedError) -> Outcome<any Sendable> {
        try body()
    }
}
