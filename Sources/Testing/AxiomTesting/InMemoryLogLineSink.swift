import AxiomCore
import Synchronization

/// A log line sink that keeps every line, for tests that read what a structured log handler wrote.
public final class InMemoryLogLineSink: LogLineSink {
    private let storage = Mutex<[String]>([])

    /// Creates an empty sink.
    public init() {}

    public func write(_ line: String) {
        storage.withTrackedLock { $0.append(line) }
    }

    /// Every line written so far, in order.
    public var lines: [String] { storage.withTrackedLock { $0 } }

    /// Forgets the lines written so far.
    package func clear() { storage.withTrackedLock { $0.removeAll() } }
}
