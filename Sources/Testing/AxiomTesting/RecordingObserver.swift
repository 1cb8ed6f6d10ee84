import AxiomCore
import Synchronization

/// An observer that keeps every outcome it sees, for tests that check "exactly one outcome per event".
public final class RecordingObserver: ErrorObserver {
    /// One observed outcome.
    public struct Record: Sendable {
        /// The event as it ended.
        public let event: ErrorEvent
        /// The fate the layer carried out.
        public let disposition: Disposition
    }

    private let storage = Mutex<[Record]>([])

    /// Creates an empty recorder.
    public init() {}

    public func observe(_ event: ErrorEvent, disposition: Disposition) {
        storage.withTrackedLock { $0.append(Record(event: event, disposition: disposition)) }
    }

    /// Everything observed so far, in order.
    public var records: [Record] { storage.withTrackedLock { $0 } }

    /// The dispositions observed so far, in order.
    package var dispositions: [Disposition] { records.map(\.disposition) }
}
