import CoreMetrics
import Synchronization

/// Reports circuit-breaker state through swift-metrics, under the same series as the framework's
/// ``CircuitBreaker``, for a breaker the application runs itself (one of another library, or a proxy's whose state
/// it polls). A ``CircuitBreaker`` reports its own state; create one of these only for the others.
///
/// Call ``breakerStateChanged(_:to:)`` on every transition (and once at creation with `.closed`), and
/// ``callRejected(_:)`` when the breaker refuses a call:
///
/// - `axiom_circuit_breaker_state{key}`: a gauge, 0 closed, 1 half-open, 2 open, 3 isolated;
/// - `axiom_circuit_breaker_transitions_total{key, to}`: a counter of transitions into each state;
/// - `axiom_circuit_breaker_rejections_total{key}`: calls refused.
///
/// ```swift
/// let breakers = ResilienceMetrics()
/// upstream.onStateChange { state in breakers.breakerStateChanged("payments-proxy", to: state) }
/// ```
///
/// A dashboard reads one series whichever of the two reports a key; report each key from one place only.
package final class ResilienceMetrics: Sendable {
    /// The state gauge's label.
    package static let stateLabel = "axiom_circuit_breaker_state"
    /// The transition counter's label.
    package static let transitionsLabel = "axiom_circuit_breaker_transitions_total"
    /// The rejection counter's label.
    package static let rejectionsLabel = "axiom_circuit_breaker_rejections_total"

    private struct Handles {
        let state: Gauge
        let rejections: Counter
        var transitions: [CircuitState: Counter] = [:]
    }

    private let factory: any MetricsFactory
    private let handles = Mutex<[String: Handles]>([:])

    /// Reports through `factory` (the bootstrapped one by default).
    package init(factory: any MetricsFactory = MetricsSystem.factory) { self.factory = factory }

    /// Records that the breaker of `breaker` (its key: usually a domain, `nwc`) is now in `state`.
    package func breakerStateChanged(_ breaker: String, to state: CircuitState) {
        let (gauge, transitions) = handles.withTrackedLock { all in
            var handles = all[breaker] ?? makeHandles(breaker)
            let counter =
                handles.transitions[state]
                ?? Counter(
                    label: Self.transitionsLabel, dimensions: [("key", breaker), ("to", state.rawValue)],
                    factory: factory)
            handles.transitions[state] = counter
            all[breaker] = handles
            return (handles.state, counter)
        }
        gauge.record(state.gaugeValue)
        transitions.increment()
    }

    /// Records that the breaker of `breaker` refused a call.
    package func callRejected(_ breaker: String) {
        let counter = handles.withTrackedLock { all in
            let handles = all[breaker] ?? makeHandles(breaker)
            all[breaker] = handles
            return handles.rejections
        }
        counter.increment()
    }

    private func makeHandles(_ breaker: String) -> Handles {
        Handles(
            state: Gauge(label: Self.stateLabel, dimensions: [("key", breaker)], factory: factory),
            rejections: Counter(label: Self.rejectionsLabel, dimensions: [("key", breaker)], factory: factory))
    }
}
