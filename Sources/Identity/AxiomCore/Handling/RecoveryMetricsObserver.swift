import CoreMetrics
import Synchronization

/// Counts error and recovery rates per domain through swift-metrics, so a dashboard shows how often each domain
/// fails and how often its recoveries succeed.
///
/// - `axiom_domain_errors_total{domain}`: errors entering the system; an error escalated across layers
///   is counted once, at the layer where it began.
/// - `axiom_recovery_attempts_total{domain}`: episodes in which a recovery ran (a retry, or a fallback).
/// - `axiom_recovery_successes_total{domain}`: those that ended recovered.
///
/// The success rate is successes ÷ attempts; `recoverySuccessRate(domain:)` gives it in-process for
/// dashboards and demos without a metrics backend.
///
/// The application creates it and adds it to its pipelines' observers, beside ``MetricsObserver`` (which counts
/// every episode by code, disposition and layer) when it wants rates per domain:
///
/// ```swift
/// let recoveries = RecoveryMetricsObserver()
/// ErrorObserverSystem.bootstrap(LoggingObserver(), MetricsObserver(), recoveries)
/// ```
public final class RecoveryMetricsObserver: ErrorObserver {
    /// Counter of errors per domain.
    package static let errorsLabel = "axiom_domain_errors_total"
    /// Counter of recovery attempts per domain.
    package static let attemptsLabel = "axiom_recovery_attempts_total"
    /// Counter of successful recoveries per domain.
    package static let successesLabel = "axiom_recovery_successes_total"

    /// The counts of one domain.
    package struct Tally: Sendable, Hashable {
        /// Errors that entered the system.
        package var errors = 0
        /// Episodes in which a recovery ran.
        package var recoveryAttempts = 0
        /// Episodes that ended recovered.
        package var recoverySuccesses = 0

        /// Creates a tally.
        package init(errors: Int = 0, recoveryAttempts: Int = 0, recoverySuccesses: Int = 0) {
            self.errors = errors
            self.recoveryAttempts = recoveryAttempts
            self.recoverySuccesses = recoverySuccesses
        }
    }

    private struct Counters {
        let errors: Counter
        let attempts: Counter
        let successes: Counter
    }

    private struct State {
        var counters: [String: Counters] = [:]
        var tallies: [String: Tally] = [:]
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())

    /// Counts through `factory` (the bootstrapped one by default).
    public init(factory: any MetricsFactory = MetricsSystem.factory) { self.factory = factory }

    public func observe(_ event: ErrorEvent, disposition: Disposition) {
        let domain = event.code.domain
        let entered = event.escalatedFrom == nil
        let recovered = disposition == .recover
        // A later attempt means a retry ran; a recovered first attempt means a fallback value was used.
        let attempted = recovered || event.attempt > 1
        guard entered || attempted else { return }
        let counters = state.withTrackedLock { state in
            if entered { state.tallies[domain, default: Tally()].errors += 1 }
            if attempted { state.tallies[domain, default: Tally()].recoveryAttempts += 1 }
            if recovered { state.tallies[domain, default: Tally()].recoverySuccesses += 1 }
            if let counters = state.counters[domain] { return counters }
            let dimensions = [("domain", domain)]
            let counters = Counters(
                errors: Counter(label: Self.errorsLabel, dimensions: dimensions, factory: factory),
                attempts: Counter(label: Self.attemptsLabel, dimensions: dimensions, factory: factory),
                successes: Counter(label: Self.successesLabel, dimensions: dimensions, factory: factory))
            state.counters[domain] = counters
            return counters
        }
        if entered { counters.errors.increment() }
        if attempted { counters.attempts.increment() }
        if recovered { counters.successes.increment() }
    }

    /// The counts of a domain so far.
    package func tally(domain: String) -> Tally {
        state.withTrackedLock { $0.tallies[domain] ?? Tally() }
    }

    /// Successful recoveries ÷ recovery attempts in a domain, or nil before the first attempt.
    package func recoverySuccessRate(domain: String) -> Double? {
        let tally = tally(domain: domain)
        guard tally.recoveryAttempts > 0 else { return nil }
        return Double(tally.recoverySuccesses) / Double(tally.recoveryAttempts)
    }
}
