import CoreMetrics
import Logging

/// A change of feature level, with the reason for the new one.
package struct FeatureLevelTransition: Sendable, Hashable {
    /// The level left.
    package let from: FeatureLevel
    /// The level entered.
    package let to: FeatureLevel
    /// Why (nil when back at full).
    package let reason: String?
}

/// Keeps the application's feature level: evaluates capabilities and system health, and reports each change.
///
/// Call ``evaluate()`` when something may have changed (periodically, after a capability error). Each
/// transition is logged (notice when degrading, info when recovering), recorded on the
/// `axiom_feature_level` gauge (0 full … 4 minimal) and the `axiom_feature_level_transitions_total{from,to}`
/// counter, and published to ``transitions()`` subscribers and observers.
package actor FeatureLevelMonitor {
    /// The current level.
    package private(set) var level: FeatureLevel = .full
    /// Why the level is not full.
    package private(set) var reason: String?
    /// The last health reading.
    package private(set) var health: SystemHealth?

    private let validator: CapabilityValidator
    private let policy: FeaturePolicy
    private let healthSource: any SystemHealthSource
    private let logger: Logger
    private let metrics: any MetricsFactory
    private let gauge: Gauge
    private nonisolated let broadcaster = Broadcaster<FeatureLevelTransition>()
    private var observers: [@Sendable (FeatureLevelTransition) -> Void] = []

    /// Creates a monitor at `full`, checking the policy's capabilities with `validator`.
    package init(
        validator: CapabilityValidator, policy: FeaturePolicy = FeaturePolicy(),
        health: any SystemHealthSource = LinuxSystemHealth(), logger: Logger = .axiom("axiom.features"),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.validator = validator
        self.policy = policy
        self.healthSource = health
        self.logger = logger.redacting()
        self.metrics = metrics
        self.gauge = Gauge(label: "axiom_feature_level", factory: metrics)
        gauge.record(FeatureLevel.full.degradation)
    }

    /// Every transition from now on.
    package nonisolated func transitions() -> AsyncStream<FeatureLevelTransition> { broadcaster.subscribe() }

    /// Calls `observer` on every transition from now on.
    package func addObserver(_ observer: @escaping @Sendable (FeatureLevelTransition) -> Void) {
        observers.append(observer)
    }

    /// Checks capabilities (through the validator's cache) and health, and moves to the level they call for.
    @discardableResult
    package func evaluate() async -> FeatureLevel {
        var available: Set<String> = []
        for name in policy.capabilities.union(validator.names).sorted() {
            if await validator.status(of: name).isAvailable { available.insert(name) }
        }
        let health = await healthSource.read()
        self.health = health
        let (next, why) = policy.decide(available: available, health: health)
        reason = why
        guard next != level else { return level }
        let transition = FeatureLevelTransition(from: level, to: next, reason: why)
        level = next
        report(transition)
        return level
    }

    private func report(_ transition: FeatureLevelTransition) {
        logger.log(
            level: transition.to > transition.from ? .notice : .info,
            "feature level \(transition.from) → \(transition.to)",
            metadata: [
                "from": "\(transition.from)", "to": "\(transition.to)", "reason": "\(transition.reason ?? "recovered")",
            ])
        gauge.record(transition.to.degradation)
        Counter(
            label: "axiom_feature_level_transitions_total",
            dimensions: [("from", transition.from.rawValue), ("to", transition.to.rawValue)], factory: metrics
        ).increment()
        for observer in observers { observer(transition) }
        broadcaster.publish(transition)
    }
}
