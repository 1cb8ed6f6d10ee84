import Axiom
import AxiomTesting
import MetricsTestKit
import Testing

@Suite("Error, recovery and breaker metrics")
struct ObservabilityMetricsTests {
    @Test("error and recovery success rates per domain")
    func recoveryRates() {
        let metrics = TestMetrics()
        let observer = RecoveryMetricsObserver(factory: metrics)
        let registry = ErrorRegistry()
        func event(attempt: Int) -> ErrorEvent {
            ErrorEvent(
                error: ClientError.concurrencyViolation, layer: .client, operation: "save", attempt: attempt,
                registry: registry)
        }
        observer.observe(event(attempt: 2), disposition: .recover)  // a retry made it succeed
        observer.observe(event(attempt: 3), disposition: .handle)  // retries ran out
        observer.observe(event(attempt: 1), disposition: .handle)  // no recovery tried

        let tally = observer.tally(domain: ClientError.domain)
        #expect(tally == RecoveryMetricsObserver.Tally(errors: 3, recoveryAttempts: 2, recoverySuccesses: 1))
        #expect(observer.recoverySuccessRate(domain: ClientError.domain) == 0.5)
        #expect(observer.recoverySuccessRate(domain: "nwc") == nil)
        let domain = [("domain", ClientError.domain)]
        #expect(metrics.counterTotal(label: RecoveryMetricsObserver.errorsLabel, dimensions: domain) == 3)
        #expect(metrics.counterTotal(label: RecoveryMetricsObserver.attemptsLabel, dimensions: domain) == 2)
        #expect(metrics.counterTotal(label: RecoveryMetricsObserver.successesLabel, dimensions: domain) == 1)
    }

    @Test("breaker state is a gauge: 0 closed, 1 half-open, 2 open, 3 isolated")
    func breakerState() throws {
        let metrics = TestMetrics()
        let resilience = ResilienceMetrics(factory: metrics)
        resilience.breakerStateChanged("nwc", to: .closed)
        resilience.breakerStateChanged("nwc", to: .open)
        resilience.callRejected("nwc")
        resilience.callRejected("nwc")
        let gauge = try metrics.expectGauge(ResilienceMetrics.stateLabel, [("key", "nwc")])
        #expect(gauge.lastValue == 2)
        resilience.breakerStateChanged("nwc", to: .halfOpen)
        #expect(gauge.lastValue == 1)
        resilience.breakerStateChanged("nwc", to: .isolated)
        #expect(gauge.lastValue == 3)
        #expect(
            metrics.counterTotal(
                label: ResilienceMetrics.transitionsLabel, dimensions: [("key", "nwc"), ("to", "open")]) == 1)
        #expect(metrics.counterTotal(label: ResilienceMetrics.rejectionsLabel, dimensions: [("key", "nwc")]) == 2)
    }
}
