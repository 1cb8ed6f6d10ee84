import AxiomCatalog

/// Sees every error episode once per layer, when that layer is done with it. Logging and metrics are observers.
public protocol ErrorObserver: Sendable {
    /// Called exactly once per event and layer, with the fate the layer carried out: `ignore`, `recover`
    /// (the operation succeeded after all), `handle` (the last line), or `escalate` (passed to the next layer,
    /// ``ErrorEvent/escalatedTo``, whose observers see the episode again).
    func observe(_ event: ErrorEvent, disposition: Disposition)
}
