import AxiomTesting
import MetricsTestKit
import Testing

@testable import AxiomCore

/// The metrics observer counts straight into the backend until threads keep taking turns at a series; then each
/// thread counts into its own stripe, and the stripes reach the backend every flush interval, at `flush()` and when
/// the observer goes. No count is ever lost.
@Suite("Metrics observer: counting from many cores")
struct MetricsStripingTests {
    enum StripeError: IdentifiableError {
        case busy
        var errorCode: ErrorCode { ErrorCode("stripe.test", "BUSY") }
    }

    static let registry: ErrorRegistry = {
        let registry = ErrorRegistry()
        try! registry.register(
            ErrorCatalog(
                source: "stripe.test", domains: ["stripe.test"],
                descriptors: [ErrorDescriptor(code: StripeError.busy.errorCode, category: .api)]))
        return registry
    }()

    static let dimensions = [
        ("domain", "stripe.test"), ("code", "BUSY"), ("disposition", "ignore"), ("layer", "client"),
    ]

    static func pipeline(_ observer: MetricsObserver) -> ErrorPipeline<Ignore> {
        ErrorPipeline(
            layer: .client, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [observer])
        ) { Ignore(.any) }
    }

    @Test("one thread counting a series counts straight into the backend: each count can be read at once")
    func oneThreadCountsAtOnce() throws {
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics, clock: ManualClock())
        let pipeline = Self.pipeline(observer)
        for round in 1...3_000 {
            _ = try pipeline.decide(StripeError.busy, operation: "poll")
            if round % 1_000 == 0 {
                #expect(try metrics.expectCounter(MetricsObserver.label, Self.dimensions).totalValue == Int64(round))
            }
        }
        #expect(observer.stripedSeriesCount == 0)
    }

    @Test("threads that keep taking turns at a series stripe it; the flusher, flush() and release lose no count")
    func turnsStripeTheSeries() async throws {
        let metrics = TestMetrics()
        let clock = ManualClock()
        let rounds = 2 * MetricsObserver.turnsBeforeStriping
        do {
            let observer = MetricsObserver(factory: metrics, flushInterval: .seconds(1), clock: clock)
            let pipeline = Self.pipeline(observer)
            takeTurnsOnTwoThreads(rounds: rounds) { _ = try? pipeline.decide(StripeError.busy, operation: "poll") }
            #expect(observer.stripedSeriesCount == 1)
            let counter = try metrics.expectCounter(MetricsObserver.label, Self.dimensions)
            // Counts made after the series was striped wait in the stripes.
            #expect(counter.totalValue >= Int64(MetricsObserver.turnsBeforeStriping - 1))
            #expect(counter.totalValue < Int64(2 * rounds))

            // The flusher adds them one interval later.
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers(1)
            #expect(counter.totalValue == Int64(2 * rounds))

            // Striped counts wait for the next interval, or for flush().
            for _ in 0..<10 { _ = try pipeline.decide(StripeError.busy, operation: "poll") }
            #expect(counter.totalValue == Int64(2 * rounds))
            observer.flush()
            #expect(counter.totalValue == Int64(2 * rounds + 10))

            // And for the observer's release.
            for _ in 0..<5 { _ = try pipeline.decide(StripeError.busy, operation: "poll") }
        }
        let counter = try metrics.expectCounter(MetricsObserver.label, Self.dimensions)
        #expect(counter.totalValue == Int64(2 * rounds + 15))
    }

    @Test("flushAll() flushes every observer's stripes (for a shutdown); flushing again adds nothing twice")
    func flushingTwiceAddsOnce() throws {
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics, clock: ManualClock())
        let pipeline = Self.pipeline(observer)
        takeTurnsOnTwoThreads(rounds: MetricsObserver.turnsBeforeStriping) {
            _ = try? pipeline.decide(StripeError.busy, operation: "poll")
        }
        #expect(observer.stripedSeriesCount == 1)
        MetricsObserver.flushAll()
        let counter = try metrics.expectCounter(MetricsObserver.label, Self.dimensions)
        #expect(counter.totalValue == Int64(2 * MetricsObserver.turnsBeforeStriping))
        observer.flush()
        #expect(counter.totalValue == Int64(2 * MetricsObserver.turnsBeforeStriping))
        #expect(metrics.counters.filter { $0.label == MetricsObserver.label }.count == 1)
    }
}
