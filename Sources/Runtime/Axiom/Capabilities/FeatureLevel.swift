/// How much of the application can run, from everything to the bare core: it degrades step by step instead of
/// failing blindly.
package enum FeatureLevel: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Every feature.
    case full
    /// Enhanced features are off.
    case limited
    /// Only essential features.
    case basic
    /// No network features.
    case offline
    /// Core functionality only: the system is short of resources.
    case minimal

    /// 0 for full up to 4 for minimal: how degraded the level is, also the value of the level gauge.
    package var degradation: Int {
        switch self {
        case .full: 0
        case .limited: 1
        case .basic: 2
        case .offline: 3
        case .minimal: 4
        }
    }

    /// Orders levels from full (smallest) to minimal.
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.degradation < rhs.degradation }

    package var description: String { rawValue }
}

/// Decides the feature level from the available capabilities and the system's health.
///
/// In order: a saturated system (memory use, CPU load or pressure at their limits) is `minimal`; without the
/// network capability, `offline`; without an essential capability, `basic`; without an enhanced one,
/// `limited`; otherwise `full`. The limits: memory above 90 %, CPU above 95 %.
package struct FeaturePolicy: Sendable {
    /// The capability whose absence means offline.
    package var network: String
    /// Capabilities without which only basic features run.
    package var essential: Set<String>
    /// Capabilities without which the level is limited.
    package var enhanced: Set<String>
    /// Memory use above which the level is minimal.
    package var memoryUsageLimit: Double
    /// CPU load above which the level is minimal.
    package var cpuLoadLimit: Double
    /// cgroup pressure (CPU or memory) above which the level is minimal.
    package var pressureLimit: Double

    /// Creates a policy.
    package init(
        network: String = "network", essential: Set<String> = ["storage"], enhanced: Set<String> = [],
        memoryUsageLimit: Double = 0.9, cpuLoadLimit: Double = 0.95, pressureLimit: Double = 0.5
    ) {
        self.network = network
        self.essential = essential
        self.enhanced = enhanced
        self.memoryUsageLimit = memoryUsageLimit
        self.cpuLoadLimit = cpuLoadLimit
        self.pressureLimit = pressureLimit
    }

    /// Every capability the policy looks at.
    package var capabilities: Set<String> { essential.union(enhanced).union([network]) }

    /// The level and a reason for it (nil at full).
    package func decide(available: Set<String>, health: SystemHealth) -> (level: FeatureLevel, reason: String?) {
        if let usage = health.memoryUsage, usage > memoryUsageLimit {
            return (.minimal, "memory use \(percent(usage)) above \(percent(memoryUsageLimit))")
        }
        if let load = health.cpuLoad, load > cpuLoadLimit {
            return (.minimal, "CPU load \(percent(load)) above \(percent(cpuLoadLimit))")
        }
        for (what, value) in [("CPU", health.cpuPressure), ("memory", health.memoryPressure)] {
            if let value, value > pressureLimit {
                return (.minimal, "\(what) pressure \(percent(value)) above \(percent(pressureLimit))")
            }
        }
        if !available.contains(network) { return (.offline, "capability \(network) unavailable") }
        if let missing = essential.subtracting(available).sorted().first {
            return (.basic, "essential capability \(missing) unavailable")
        }
        if let missing = enhanced.subtracting(available).sorted().first {
            return (.limited, "capability \(missing) unavailable")
        }
        return (.full, nil)
    }

    private func percent(_ value: Double) -> String { "\(Int((value * 100).rounded())) %" }
}
