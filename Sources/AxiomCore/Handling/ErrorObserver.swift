/// Sees every error episode once, when it ends. Logging and metrics are observers.
public protocol ErrorObserver: Sendable {
    /// Called exactly once per event, with how it ended.
    func observe(_ event: ErrorEvent, resolution: ErrorResolution)
}
