import AxiomTesting
import CAxiomFlightRecorder
import Foundation
import MetricsTestKit
import Synchronization
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

    /// Decides `rounds` errors on each of two threads that take turns, one error each turn: every error is a turn.
    /// The threads are real ones with different shards (a thread that shares a shard with the other is replaced).
    static func takeTurns(rounds: Int, _ decide: @escaping @Sendable () -> Void) {
        let turn = Atomic<Int>(0)
        let shards = Mutex<[UInt32]>([])
        let done = DispatchGroup()
        for player in 0..<2 {
            done.enter()
            let thread = Thread {
                // Both threads learn their shard first; a player whose shard the other has stands aside for a
                // fresh thread (rare: only when the shards are all given out).
                var shard = axiom_flight_recorder_thread_shard()
                while shards.withLock({ $0.contains(shard) }) {
                    let fresh = DispatchSemaphore(value: 0)
                    let box = Mutex<UInt32>(0)
                    Thread {
                        box.withLock { $0 = axiom_flight_recorder_thread_shard() }
                        fresh.signal()
                    }.start()
                    fresh.wait()
                    shard = box.withLock { $0 }
                }
                shards.withLock { $0.append(shard) }
                for _ in 0..<rounds {
                    while turn.load(ordering: .acquiring) % 2 != player { sched_yield() }
                    decide()
                    turn.add(1, ordering: .releasing)
                }
                done.leave()
            }
            thread.start()
        }
        done.wait()
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
            Self.takeTurns(rounds: rounds) { _ = try? pipeline.decide(StripeError.busy, operation: "poll") }
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
        Self.takeTurns(rounds: MetricsObserver.turnsBeforeStriping) {
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
