import CoreMetrics
import Logging
import Synchronization

/// One breaker per key, created on first use with a shared configuration and clock.
public final class CircuitBreakers: Sendable {
    private let breakers = Mutex<[String: CircuitBreaker]>([:])
    private let make: @Sendable (String) -> CircuitBreaker

    /// Creates an empty set of breakers; each new key gets a breaker with `configuration`.
    ///
    /// - Throws: `ResilienceConfigurationError` when an option of `configuration` cannot work.
    public init(
        configuration: CircuitBreaker.Configuration = .standard, clock: some Clock<Duration> = ContinuousClock(),
        metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger = .axiom("axiom.resilience")
    ) throws(ResilienceConfigurationError) {
        try configuration.validate(key: "*")
        let runtimeClock = RuntimeClock(clock)
        make = { key in
            do {
                return try CircuitBreaker(
                    key: key, configuration: configuration, runtimeClock: runtimeClock, metrics: metrics,
                    logger: logger)
            } catch {
                // The options were checked above and a key does not change them.
                preconditionFailure("\(error)")
            }
        }
    }

    /// The breaker of `key`, created if needed. The same key always gives the same breaker.
    public func breaker(for key: String) -> CircuitBreaker {
        breakers.withTrackedLock { breakers in
            if let breaker = breakers[key] { return breaker }
            let breaker = make(key)
            breakers[key] = breaker
            return breaker
        }
    }

    /// The keys that have a breaker.
    package var keys: [String] { breakers.withTrackedLock { $0.keys.sorted() } }
}
