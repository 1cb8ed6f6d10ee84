import AxiomCore
import Synchronization

/// An observer that keeps every outcome it sees, for tests that check "exactly one outcome per event".
public final class RecordingObserver: ErrorObserver {
    /// One observed outcome.
    public struct Record: Sendable {
        /// The event as it ended.
        public let event: ErrorEvent
        /// How it ended.
        public let resolution: ErrorResolution
    }

    private let storage = Mutex<[Record]>([])

    /// Creates an empty recorder.
    public init() {}

    public func observe(_ event: ErrorEvent, resolution: ErrorResolution) {
        storage.withTrackedLock { $0.append(Record(event: event, resolution: resolution)) }
    }

    /// Everything observed so far, in order.
    public var records: [Record] { storage.withTrackedLock { $0 } }

    /// The resolutions observed so far, in order.
    public var resolutions: [ErrorResolution] { records.map(\.resolution) }
}
