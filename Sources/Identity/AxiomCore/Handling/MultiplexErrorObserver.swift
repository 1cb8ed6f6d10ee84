import AxiomCatalog
import Synchronization

/// Passes every event to several observers, in order: how a process combines logging, metrics and tracing
/// into the one observer it bootstraps.
public struct MultiplexErrorObserver: ErrorObserver {
    /// The observers, called in this order.
    package let observers: [any ErrorObserver]

    /// Combines observers.
    public init(_ observers: [any ErrorObserver]) { self.observers = observers }

    public func observe(_ event: ErrorEvent, disposition: Disposition) {
        for observer in observers { observer.observe(event, disposition: disposition) }
    }
}
