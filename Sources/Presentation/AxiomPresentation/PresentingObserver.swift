import AxiomCore
import Synchronization

/// Presents every error a pipeline handles (the fate `handle`, in the terminal layer) on a queue.
///
/// Ignored, recovered and escalated errors are not shown: the user sees an error once, from the layer
/// that ends it.
public struct PresentingObserver: ErrorObserver {
    /// Maps events to presentations.
    package let mapper: ErrorMapper
    /// Where they are shown.
    package let queue: PresentationQueue

    /// Presents handled errors, mapped by `mapper`, on `queue`.
    public init(mapper: ErrorMapper, queue: PresentationQueue) {
        self.mapper = mapper
        self.queue = queue
    }

    public func observe(_ event: ErrorEvent, disposition: Disposition) {
        guard disposition == .handle else { return }
        queue.present(mapper.map(event))
    }
}
