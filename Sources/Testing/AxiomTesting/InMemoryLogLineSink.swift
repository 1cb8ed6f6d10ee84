import AxiomCore
import Synchronization

/// Keeps every line written to it, for tests that read what a structured log handler wrote:
/// `StructuredLogHandler(label: label, sink: lines.write)`.
public final class InMemoryLogLineSink: Sendable {
    private let storage = Mutex<[String]>([])

    /// Creates an empty sink.
    public init() {}

    /// Keeps `line`.
    public func write(_ line: String) {
        storage.withTrackedLock { $0.append(line) }
    }

    /// Every line written so far, in order.
    public var lines: [String] { storage.withTrackedLock { $0 } }

    /// Forgets the lines written so far.
    package func clear() { storage.withTrackedLock { $0.removeAll() } }
}
