import AxiomCatalog
import Synchronization

/// How an error episode ended. Every event gets exactly one.
public enum ErrorResolution: Sendable, Hashable, CustomStringConvertible {
    /// Expected and dropped.
    case ignored
    /// The operation succeeded after all (retry, refresh, fallback value).
    case recovered
    /// Passed, maybe translated, to another layer.
    case escalated(to: Layer)
    /// Taken by a `Handle` handler (the last line): logged, counted, presented; the end.
    case handled

    /// The disposition this resolution carries out.
    public var disposition: Disposition {
        switch self {
        case .ignored: .ignore
        case .recovered: .recover
        case .escalated: .escalate
        case .handled: .handle
        }
    }

    public var description: String {
        switch self {
        case .ignored: "ignored"
        case .recovered: "recovered"
        case .escalated(let layer): "escalated to \(layer)"
        case .handled: "handled"
        }
    }
}
