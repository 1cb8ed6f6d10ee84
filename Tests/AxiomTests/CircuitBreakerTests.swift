import Axiom
import AxiomTesting
import MetricsTestKit
import Testing

@Suite("Circuit breaker")
struct CircuitBreakerTests {
    struct Boom: Error {}

    func fail(_ breaker: CircuitBreaker, times: Int) {
        for _ in 0..<times {
            guard let permit = try? breaker.acquire() else { return }
            breaker.recordFailure(permit, error: Boom())
        }
    }

    @Test("opens after 5 consecutive failures and refuses calls with the time until a probe")
    func opensAfterThreshold() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 4)
        #expect(breaker.state == .closed)
        fail(breaker, times: 1)
        #expect(breaker.state == .open)

        clock.advance(by: .seconds(20))
        let error = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        #expect(error.retryAfter == .seconds(40))
        #expect(error.state == .open)
        #expect(
            ErrorRegistry().identity(of: error) == ErrorIdentity(code: CircuitOpenError.code, retryAfter: .seconds(40)))
    }

    @Test("a success resets the consecutive-failure count")
    func successResetsCount() throws {
        let breaker = CircuitBreaker(key: "wallet", clock: ManualClock())
        fail(breaker, times: 4)
        breaker.recordSuccess(try breaker.acquire())
        fail(breaker, times: 4)
        #expect(breaker.state == .closed)
    }

    @Test("half-open lets exactly one probe through; success closes the breaker")
    func singleProbeThenClose() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))

        let probe = try breaker.acquire()
        #expect(probe == .probe)
        #expect(breaker.state == .halfOpen)
        for _ in 0..<3 {
            let refused = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
            #expect(refused.state == .halfOpen)
            #expect(refused.retryAfter == .seconds(60))
        }
        breaker.recordSuccess(probe)
        #expect(breaker.state == .closed)
        #expect(try breaker.acquire() == .normal)
    }

    @Test("a failed probe re-opens the breaker for another open duration")
    func failedProbeReopens() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))
        breaker.recordFailure(try breaker.acquire(), error: Boom())
        #expect(breaker.state == .open)
        let error = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        #expect(error.retryAfter == .seconds(60))
    }

    @Test("a cancelled probe frees the probe slot without closing or re-opening")
    func cancelledProbeFreesSlot() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))
        breaker.recordFailure(try breaker.acquire(), error: CancellationError())
        #expect(breaker.state == .halfOpen)
        #expect(try breaker.acquire() == .probe)
    }

    @Test("through the stage, concurrent calls in half-open: one probe runs, the others are refused")
    func stageAdmitsOneProbe() async throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(key: "wallet", clock: clock)
        let stage = CircuitBreakerStage(breaker)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))
        let ran = CallCounter()
        let probe = Task {
            try await stage.run("probe") { () async throws -> Int in
                ran.next()
                try await clock.sleep(for: .seconds(1))
                return 1
            }
        }
        await clock.waitForSleepers(1)
        for _ in 0..<3 {
            await #expect(throws: CircuitOpenError.self) {
                try await stage.run("other") { () async throws -> Int in
                    ran.next()
                    return 2
                }
            }
        }
        clock.advance(by: .seconds(1))
        #expect(try await probe.value == 1)
        #expect(ran.count == 1)
        #expect(breaker.state == .closed)
    }

    @Test("ratio mode opens only once the window has seen the minimum throughput")
    func ratioModeNeedsThroughput() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(
            key: "api",
            configuration: .init(
                mode: .failureRatio(threshold: 0.5, window: .seconds(10), minimumThroughput: 10)),
            clock: clock)
        fail(breaker, times: 9)
        #expect(breaker.state == .closed, "9 failures out of 9 calls is below the minimum of 10 calls")
        fail(breaker, times: 1)
        #expect(breaker.state == .open)
    }

    @Test("ratio mode stays closed below the threshold ratio and forgets calls older than the window")
    func ratioModeWindow() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(
            key: "api",
            configuration: .init(
                mode: .failureRatio(threshold: 0.5, window: .seconds(10), minimumThroughput: 10)),
            clock: clock)
        for _ in 0..<6 { breaker.recordSuccess(try breaker.acquire()) }
        fail(breaker, times: 5)
        #expect(breaker.state == .closed, "5 of 11 failed: below half")
        clock.advance(by: .seconds(11))
        fail(breaker, times: 9)
        #expect(breaker.state == .closed, "the old calls left the window; 9 new calls are below the minimum")
        fail(breaker, times: 1)
        #expect(breaker.state == .open)
    }

    @Test("isolate refuses every call until a manual close")
    func manualIsolateAndClose() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(key: "wallet", clock: clock)
        breaker.isolate()
        clock.advance(by: .seconds(3600))
        let error = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        #expect(error.state == .isolated)
        #expect(error.retryAfter == nil)
        breaker.close()
        #expect(try breaker.acquire() == .normal)
    }

    @Test("transitions are published and counted")
    func transitionsObservedAndCounted() async throws {
        let clock = ManualClock()
        let metrics = TestMetrics()
        let breaker = CircuitBreaker(key: "wallet", clock: clock, metrics: metrics)
        let transitions = breaker.transitions()
        fail(breaker, times: 5)
        _ = try? breaker.acquire()
        clock.advance(by: .seconds(60))
        breaker.recordSuccess(try breaker.acquire())

        var seen: [CircuitBreaker.State] = []
        for await transition in transitions {
            seen.append(transition.to)
            if seen.count == 3 { break }
        }
        #expect(seen == [.open, .halfOpen, .closed])
        #expect(try metrics.expectGauge("axiom_circuit_breaker_state", [("key", "wallet")]).values == [0, 2, 1, 0])
        #expect(
            try metrics.expectCounter("axiom_circuit_breaker_transitions_total", [("key", "wallet"), ("to", "open")])
                .totalValue == 1)
        #expect(
            try metrics.expectCounter("axiom_circuit_breaker_rejections_total", [("key", "wallet")]).totalValue == 1)
    }

    @Test("one breaker per key")
    func oneBreakerPerKey() {
        let breakers = CircuitBreakers(clock: ManualClock())
        let wallet = breakers.breaker(for: "wallet")
        #expect(breakers.breaker(for: "wallet") === wallet)
        let relay = breakers.breaker(for: "relay")
        #expect(relay !== wallet)
        fail(wallet, times: 5)
        #expect(wallet.state == .open)
        #expect(relay.state == .closed)
        #expect(breakers.keys == ["relay", "wallet"])
    }
}
