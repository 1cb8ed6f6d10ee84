import AxiomCore
import CoreMetrics
import Synchronization

/// Counts presentations through swift-metrics:
///
/// - `axiom_presentations_shown_total{style, category}`: presentations that reached the screen;
/// - `axiom_presentations_dismissed_total{style, reason}`: how they left it (expired, replaced, dismissed).
package final class PresentationMetrics: Sendable {
    /// The shown counter's label.
    package static let shownLabel = "axiom_presentations_shown_total"
    /// The dismissed counter's label.
    package static let dismissedLabel = "axiom_presentations_dismissed_total"

    private struct Key: Hashable {
        let label: String
        let style: PresentationStyle
        let detail: String
    }

    private let factory: any MetricsFactory
    private let counters = Mutex<[Key: Counter]>([:])

    /// Counts through `factory` (the bootstrapped one by default).
    package init(factory: any MetricsFactory = MetricsSystem.factory) { self.factory = factory }

    /// Counts a presentation that reached the screen.
    package func shown(_ presentation: ErrorPresentation) {
        counter(Self.shownLabel, presentation.style, "category", presentation.category.rawValue).increment()
    }

    /// Counts a presentation that left the screen.
    package func dismissed(_ presentation: ErrorPresentation, reason: DismissReason) {
        counter(Self.dismissedLabel, presentation.style, "reason", reason.rawValue).increment()
    }

    private func counter(_ label: String, _ style: PresentationStyle, _ name: String, _ value: String) -> Counter {
        counters.withTrackedLock { counters in
            let key = Key(label: label, style: style, detail: value)
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: label, dimensions: [("style", style.rawValue), (name, value)], factory: factory)
            counters[key] = counter
            return counter
        }
    }
}
