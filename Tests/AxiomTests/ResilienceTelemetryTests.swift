import Axiom
import AxiomTesting
import InMemoryLogging
import Logging
import MetricsTestKit
import Testing

@Suite("Resilience telemetry")
struct ResilienceTelemetryTests {
    func telemetry(_ metrics: TestMetrics, _ logs: InMemoryLogHandler) -> ResilienceTelemetry {
        var logger = Logger(label: "test") { _ in logs }
        logger.logLevel = .trace
        return ResilienceTelemetry(pipeline: "payments", factory: metrics, logger: logger)
    }

    @Test("retries are counted by code, attempts timed by outcome, failed attempts logged at debug only")
    func retryTelemetry() async throws {
        let clock = ManualClock()
        let metrics = TestMetrics()
        let logs = InMemoryLogHandler()
        let telemetry = telemetry(metrics, logs)
        let calls = CallCounter()
        let registry = try nwcRegistry()
        let chain = OperationChain {
            ResilienceTelemetryStage(telemetry, clock: clock, registry: registry)
            RetryStage(configuration: .init(registry: registry, telemetry: telemetry), clock: clock)
        }
        let task = Task {
            try await chain.run("pay") { () async throws -> Int in
                if calls.next() < 3 {
                    try await clock.sleep(for: .seconds(2))
                    throw nwc("INTERNAL")
                }
                return 1
            }
        }
        // Attempt 1 takes 2 s, waits 1 s; attempt 2 takes 2 s, waits 2 s; attempt 3 succeeds at once.
        await clock.drive(4)
        #expect(try await task.value == 1)
        let retries = try metrics.expectCounter(
            "axiom_resilience_events_total",
            [
                ("pipeline", "payments"), ("stage", "retry"), ("event", "retry"), ("operation", "pay"),
                ("outcome", "nwc/INTERNAL"),
            ])
        #expect(retries.totalValue == 2)
        let failed = try metrics.expectTimer(
            "axiom_resilience_attempt_duration_seconds",
            [("pipeline", "payments"), ("operation", "pay"), ("outcome", "nwc/INTERNAL")])
        #expect(failed.values == [2_000_000_000, 2_000_000_000])
        let succeeded = try metrics.expectTimer(
            "axiom_resilience_attempt_duration_seconds",
            [("pipeline", "payments"), ("operation", "pay"), ("outcome", "success")])
        #expect(succeeded.values == [0])
        let operation = try metrics.expectTimer(
            "axiom_resilience_operation_duration_seconds",
            [("pipeline", "payments"), ("operation", "pay"), ("outcome", "success")])
        #expect(operation.values == [7_000_000_000])
        let entries = logs.entries
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.level == .debug })
        #expect(
            entries.first.map { "\($0.message)" }
                == "attempt 1 of pay failed with nwc/INTERNAL; retrying in 1.0 seconds")
    }

    @Test("timeouts, limiter and breaker rejections and hedges are counted as resilience events")
    func otherEvents() async throws {
        let clock = ManualClock()
        let metrics = TestMetrics()
        let telemetry = telemetry(metrics, InMemoryLogHandler())
        func count(_ stage: String, _ event: String, _ outcome: String) throws -> Int64 {
            // `expectCounter` throws when no such counter was made.
            let dimensions = [
                ("pipeline", "payments"), ("stage", stage), ("event", event), ("operation", "op"), ("outcome", outcome),
            ]
            let counter = try metrics.expectCounter("axiom_resilience_events_total", dimensions)
            return counter.totalValue
        }

        let timeout = TimeoutStage(.seconds(1), clock: clock, telemetry: telemetry)
        let slow = Task {
            try await timeout.run("op") { () async throws -> Int in
                try await clock.sleep(for: .seconds(5))
                return 1
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        await #expect(throws: TimeoutError.self) { try await slow.value }
        #expect(try count("timeout", "timeout", "axiom.resilience/timeout") == 1)

        let limiter = try RateLimiter(
            key: "api", algorithm: .tokenBucket(capacity: 1, tokensPerPeriod: 1, period: .seconds(1)), clock: clock)
        let rate = RateLimiterStage(limiter, telemetry: telemetry)
        _ = try await rate.run("op") { 1 }
        await #expect(throws: RateLimitError.self) { try await rate.run("op") { 1 } }
        #expect(try count("rateLimiter", "rejection", "axiom.resilience/rateLimited") == 1)

        let bulkhead = ConcurrencyLimiterStage(try ConcurrencyLimiter(key: "db", limit: 1), telemetry: telemetry)
        let holding = Task {
            try await bulkhead.run("op") { () async throws -> Int in
                try await clock.sleep(for: .seconds(3))
                return 1
            }
        }
        await clock.waitForSleepers(1)
        await #expect(throws: ConcurrencyLimitError.self) { try await bulkhead.run("op") { 2 } }
        #expect(try count("concurrencyLimiter", "rejection", "axiom.resilience/concurrencyLimited") == 1)
        clock.advance(by: .seconds(3))
        _ = try await holding.value

        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
        breaker.isolate()
        let guarded = CircuitBreakerStage(breaker, telemetry: telemetry)
        await #expect(throws: CircuitOpenError.self) { try await guarded.run("op") { 1 } }
        #expect(try count("breaker", "rejection", "isolated") == 1)

        struct Down: Error {}
        let hedging = try HedgingStage(maxHedges: 1, delay: .seconds(1), clock: clock, telemetry: telemetry)
        await #expect(throws: Down.self) { try await hedging.run("op") { () async throws -> Int in throw Down() } }
        #expect(try count("hedging", "hedge", "failure") == 1)
    }
}
