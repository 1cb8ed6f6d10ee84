import CoreMetrics
import Synchronization

/// Reports circuit-breaker state through swift-metrics.
///
/// A breaker calls ``breakerStateChanged(_:to:)`` on every transition (and once at creation with
/// `.closed`), and ``callRejected(_:)`` when it refuses a call while open:
///
/// - `axiom_breaker_state{breaker}`: a gauge, 0 closed, 1 half-open, 2 open;
/// - `axiom_breaker_transitions_total{breaker, state}`: a counter of transitions into each state;
/// - `axiom_breaker_rejections_total{breaker}`: calls refused while open.
public final class ResilienceMetrics: Sendable {
    /// A breaker's state, as the gauge reports it.
    public enum BreakerState: String, Sendable, Hashable, CaseIterable {
        case closed, halfOpen, open

        /// The gauge value: 0 closed, 1 half-open, 2 open, so "above zero" means "not healthy".
        public var gaugeValue: Int {
            switch self {
            case .closed: 0
            case .halfOpen: 1
            case .open: 2
            }
        }
    }

    /// The state gauge's label.
    public static let stateLabel = "axiom_breaker_state"
    /// The transition counter's label.
    public static let transitionsLabel = "axiom_breaker_transitions_total"
    /// The rejection counter's label.
    public static let rejectionsLabel = "axiom_breaker_rejections_total"

    private struct Handles {
        let state: Gauge
        let rejections: Counter
        var transitions: [BreakerState: Counter] = [:]
    }

    private let factory: any MetricsFactory
    private let handles = Mutex<[String: Handles]>([:])

    /// Reports through `factory` (the bootstrapped one by default).
    public init(factory: any MetricsFactory = MetricsSystem.factory) { self.factory = factory }

    /// Records that the breaker named `breaker` (usually its domain, `nwc`) is now in `state`.
    public func breakerStateChanged(_ breaker: String, to state: BreakerState) {
        let (gauge, transitions) = handles.withLock { all in
            var handles = all[breaker] ?? makeHandles(breaker)
            let counter =
                handles.transitions[state]
                ?? Counter(
                    label: Self.transitionsLabel, dimensions: [("breaker", breaker), ("state", state.rawValue)],
                    factory: factory)
            handles.transitions[state] = counter
            all[breaker] = handles
            return (handles.state, counter)
        }
        gauge.record(state.gaugeValue)
        transitions.increment()
    }

    /// Records that the breaker named `breaker` refused a call while open.
    public func callRejected(_ breaker: String) {
        let counter = handles.withLock { all in
            let handles = all[breaker] ?? makeHandles(breaker)
            all[breaker] = handles
            return handles.rejections
        }
        counter.increment()
    }

    private func makeHandles(_ breaker: String) -> Handles {
        Handles(
            state: Gauge(label: Self.stateLabel, dimensions: [("breaker", breaker)], factory: factory),
            rejections: Counter(label: Self.rejectionsLabel, dimensions: [("breaker", breaker)], factory: factory))
    }
}
