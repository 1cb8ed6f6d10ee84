import AxiomCatalog
import Synchronization

/// Sees every event and does nothing: for a pipeline that must not log or count (a hot loop's inner layer, a
/// benchmark), or as the default of a process that observes elsewhere.
public struct NoOpErrorObserver: ErrorObserver {
    /// Creates the observer.
    public init() {}

    @inlinable
    public func observe(_ event: ErrorEvent, disposition: Disposition) {}
}
