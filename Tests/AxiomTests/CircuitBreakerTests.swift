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
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
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
        let breaker = try CircuitBreaker(key: "wallet", clock: ManualClock())
        fail(breaker, times: 4)
        breaker.recordSuccess(try breaker.acquire())
        fail(breaker, times: 4)
        #expect(breaker.state == .closed)
    }

    @Test("half-open lets exactly one probe through; success closes the breaker")
    func singleProbeThenClose() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))

        let probe = try breaker.acquire()
        #expect(probe.isProbe)
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
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
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
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))
        breaker.recordFailure(try breaker.acquire(), error: CancellationError())
        #expect(breaker.state == .halfOpen)
        #expect(try breaker.acquire().isProbe)
    }

    @Test("through the stage, concurrent calls in half-open: one probe runs, the others are refused")
    func stageAdmitsOneProbe() async throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
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
        let breaker = try CircuitBreaker(
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
        let breaker = try CircuitBreaker(
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
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
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
        let breaker = try CircuitBreaker(key: "wallet", clock: clock, metrics: metrics)
        let transitions = breaker.transitions()
        fail(breaker, times: 5)
        _ = try? breaker.acquire()
        clock.advance(by: .seconds(60))
        breaker.recordSuccess(try breaker.acquire())

        var seen: [CircuitState] = []
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
    func oneBreakerPerKey() throws {
        let breakers = try CircuitBreakers(clock: ManualClock())
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

@Suite("Circuit breaker options and windows")
struct CircuitBreakerOptionTests {
    struct Boom: Error {}

    func fail(_ breaker: CircuitBreaker, times: Int) {
        for _ in 0..<times {
            guard let permit = try? breaker.acquire() else { return }
            breaker.recordFailure(permit, error: Boom())
        }
    }

    func ratio(_ threshold: Double, window: Duration = .seconds(10), minimum: Int = 10) -> CircuitBreaker.Configuration
    {
        .init(mode: .failureRatio(threshold: threshold, window: window, minimumThroughput: minimum))
    }

    @Test(
        "options that cannot work are refused at construction, naming the option",
        arguments: [
            (
                "failureRatio.threshold",
                CircuitBreaker.Configuration(
                    mode: .failureRatio(threshold: 1.5, window: .seconds(10), minimumThroughput: 10))
            ),
            (
                "failureRatio.threshold",
                CircuitBreaker.Configuration(
                    mode: .failureRatio(threshold: 0, window: .seconds(10), minimumThroughput: 10))
            ),
            (
                "failureRatio.minimumThroughput",
                CircuitBreaker.Configuration(
                    mode: .failureRatio(threshold: 0.5, window: .seconds(10), minimumThroughput: 0))
            ),
            (
                "failureRatio.window",
                CircuitBreaker.Configuration(
                    mode: .failureRatio(threshold: 0.5, window: .zero, minimumThroughput: 10))
            ),
            ("consecutiveFailures.threshold", CircuitBreaker.Configuration(mode: .consecutiveFailures(threshold: 0))),
            ("openDuration", CircuitBreaker.Configuration(openDuration: .seconds(-1))),
            ("halfOpenCalls", CircuitBreaker.Configuration(halfOpenCalls: 0)),
            ("slowCalls.rate", CircuitBreaker.Configuration(slowCalls: .init(threshold: .seconds(1), rate: 2))),
            ("slowCalls.threshold", CircuitBreaker.Configuration(slowCalls: .init(threshold: .zero))),
        ])
    func invalidOptionsThrow(option: String, configuration: CircuitBreaker.Configuration) throws {
        let error = #expect(throws: ResilienceConfigurationError.self) {
            try CircuitBreaker(key: "api", configuration: configuration, clock: ManualClock())
        }
        #expect(error?.option == option)
        #expect(error?.component == "circuit breaker 'api'")
        #expect(error?.errorCode == ResilienceConfigurationError.code)
        #expect(ErrorRegistry().descriptor(for: ResilienceConfigurationError.code) != nil)
        #expect(throws: ResilienceConfigurationError.self) {
            try CircuitBreakers(configuration: configuration, clock: ManualClock())
        }
    }

    @Test("a 10 s window still counts failures 9.1 s old")
    func windowSlidesWithTheCalls() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "api", configuration: ratio(0.5), clock: clock)
        clock.advance(by: .milliseconds(950))
        fail(breaker, times: 9)
        clock.advance(by: .milliseconds(9100))
        #expect(breaker.state == .closed)
        fail(breaker, times: 1)
        #expect(breaker.state == .open, "the 9 failures of 9.1 s ago and this one: 10 of 10 calls failed")
    }

    @Test("outcomes older than the window and one bucket are forgotten")
    func windowForgetsOldOutcomes() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "api", configuration: ratio(0.5), clock: clock)
        fail(breaker, times: 9)
        clock.advance(by: .seconds(11))
        fail(breaker, times: 9)
        #expect(breaker.state == .closed, "the first 9 left the window; 9 calls are below the minimum")
        fail(breaker, times: 1)
        #expect(breaker.state == .open)
    }

    @Test("a half-open refusal 45 s into probing says 15 s, and a failed probe keeps that promise")
    func halfOpenRefusalSaysTimeLeft() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))
        let probe = try breaker.acquire()
        #expect(probe.isProbe)
        clock.advance(by: .seconds(45))
        let refused = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        #expect(refused.state == .halfOpen)
        #expect(refused.retryAfter == .seconds(15))
        breaker.recordFailure(probe, error: Boom())
        #expect(breaker.state == .open)
        let reopened = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        #expect(reopened.retryAfter == .seconds(15))
        clock.advance(by: .seconds(15))
        #expect(try breaker.acquire().isProbe)
    }

    @Test("an open refusal 45 s into a 60 s break says 15 s")
    func openRefusalSaysTimeLeft() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(45))
        let refused = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        #expect(refused.retryAfter == .seconds(15))
    }

    @Test("half-open lets the configured number of probes through and closes once they all succeed")
    func severalHalfOpenCalls() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "wallet", configuration: .init(halfOpenCalls: 3), clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))
        let probes = try (0..<3).map { _ in try breaker.acquire() }
        #expect(probes.allSatisfy { $0.isProbe })
        #expect(throws: CircuitOpenError.self) { try breaker.acquire() }
        breaker.recordSuccess(probes[0])
        breaker.recordSuccess(probes[1])
        #expect(breaker.state == .halfOpen, "two of three probes succeeded")
        breaker.recordSuccess(probes[2])
        #expect(breaker.state == .closed)
    }

    @Test("one failed probe of several re-opens the breaker; the others, ending late, do not count")
    func oneFailedProbeReopens() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "wallet", configuration: .init(halfOpenCalls: 2), clock: clock)
        fail(breaker, times: 5)
        clock.advance(by: .seconds(60))
        let first = try breaker.acquire()
        let second = try breaker.acquire()
        breaker.recordFailure(first, error: Boom())
        #expect(breaker.state == .open)
        clock.advance(by: .seconds(60))
        let next = try breaker.acquire()
        #expect(next.isProbe)
        breaker.recordSuccess(second)
        #expect(breaker.state == .halfOpen, "a probe of the previous half-open period does not count")
    }

    @Test("a break duration generator makes each break longer until the breaker closes")
    func growingBreaks() throws {
        let clock = ManualClock()
        let configuration = CircuitBreaker.Configuration(
            mode: .consecutiveFailures(threshold: 1), breakDuration: { .seconds(10) * (1 << min($0 - 1, 20)) })
        let breaker = try CircuitBreaker(key: "wallet", configuration: configuration, clock: clock)
        fail(breaker, times: 1)
        var breaks: [Duration] = []
        for _ in 0..<3 {
            let refused = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
            let wait = try #require(refused.retryAfter)
            breaks.append(wait)
            clock.advance(by: wait)
            breaker.recordFailure(try breaker.acquire(), error: Boom())
        }
        #expect(breaks == [.seconds(10), .seconds(20), .seconds(40)])
        let refused = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        clock.advance(by: try #require(refused.retryAfter))
        breaker.recordSuccess(try breaker.acquire())
        #expect(breaker.state == .closed)
        fail(breaker, times: 1)
        let afterClose = try #require(throws: CircuitOpenError.self) { try breaker.acquire() }
        #expect(afterClose.retryAfter == .seconds(10), "closing starts the series again")
    }

    @Test("slow calls open a ratio breaker at their rate, though every call succeeded")
    func slowCallRate() async throws {
        let clock = ManualClock()
        var configuration = ratio(0.5, minimum: 4)
        configuration.slowCalls = .init(threshold: .seconds(2), rate: 0.5)
        let breaker = try CircuitBreaker(key: "api", configuration: configuration, clock: clock)
        let stage = CircuitBreakerStage(breaker)
        func call(taking duration: Duration) async throws {
            let task = Task {
                try await stage.run("slow") { () async throws -> Int in
                    try await clock.sleep(for: duration)
                    return 1
                }
            }
            await clock.waitForSleepers(1)
            clock.advance(by: duration)
            _ = try await task.value
        }
        try await call(taking: .seconds(1))
        try await call(taking: .seconds(1))
        try await call(taking: .seconds(3))
        #expect(breaker.state == .closed, "1 slow call of 3: below the minimum throughput")
        try await call(taking: .seconds(3))
        #expect(breaker.state == .open, "2 slow calls of 4")
    }

    @Test("in consecutive mode a slow call counts as a failure, and a slow probe re-opens")
    func slowCallsConsecutive() throws {
        let clock = ManualClock()
        let configuration = CircuitBreaker.Configuration(
            mode: .consecutiveFailures(threshold: 2), slowCalls: .init(threshold: .seconds(5)))
        let breaker = try CircuitBreaker(key: "api", configuration: configuration, clock: clock)
        breaker.recordSuccess(try breaker.acquire(), duration: .seconds(6))
        breaker.recordSuccess(try breaker.acquire(), duration: .seconds(1))
        breaker.recordSuccess(try breaker.acquire(), duration: .seconds(6))
        #expect(breaker.state == .closed, "a fast success reset the count")
        breaker.recordSuccess(try breaker.acquire(), duration: .seconds(7))
        #expect(breaker.state == .open)
        clock.advance(by: .seconds(60))
        breaker.recordSuccess(try breaker.acquire(), duration: .seconds(6))
        #expect(breaker.state == .open, "the probe succeeded, but slowly")
    }

    /// A call through `breaker` that takes `duration` on `clock`, and fails when `failing`.
    func call(_ breaker: CircuitBreaker, on clock: ManualClock, taking duration: Duration, failing: Bool = false) {
        guard let permit = try? breaker.acquire() else { return }
        clock.advance(by: duration)
        if failing {
            breaker.recordFailure(permit, error: Boom(), duration: duration)
        } else {
            breaker.recordSuccess(permit, duration: duration)
        }
    }

    @Test(
        "the slow-call rate is checked after every call: six slow then four fast opens at the tenth, as five fast then five slow does",
        arguments: [true, false])
    func slowRateCheckedAfterEveryCall(slowFirst: Bool) throws {
        let clock = ManualClock()
        var configuration = ratio(0.5, window: .seconds(60), minimum: 10)
        configuration.slowCalls = .init(threshold: .seconds(1), rate: 0.5)
        let breaker = try CircuitBreaker(key: "api", configuration: configuration, clock: clock)
        let slow = slowFirst ? 6 : 5
        let durations = Array(repeating: Duration.milliseconds(1500), count: slow)
        let fast = Array(repeating: Duration.milliseconds(20), count: 10 - slow)
        for duration in (slowFirst ? durations + fast : fast + durations).dropLast() {
            call(breaker, on: clock, taking: duration)
        }
        #expect(breaker.state == .closed, "9 calls: below the minimum throughput")
        call(breaker, on: clock, taking: slowFirst ? .milliseconds(20) : .milliseconds(1500))
        #expect(breaker.state == .open, "\(slow) slow calls of 10, whatever the last call was")
    }

    @Test("the failure rate is checked after every call: six failures then four successes opens at the tenth")
    func failureRateCheckedAfterSuccess() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(
            key: "api", configuration: ratio(0.5, window: .seconds(60), minimum: 10), clock: clock)
        fail(breaker, times: 6)
        for _ in 0..<3 { breaker.recordSuccess(try breaker.acquire()) }
        #expect(breaker.state == .closed, "9 calls: below the minimum throughput")
        breaker.recordSuccess(try breaker.acquire())
        #expect(breaker.state == .open, "6 failures of 10, though the last call succeeded")
    }

    @Test("a call of exactly the slow-call threshold is not slow; one a nanosecond longer is")
    func exactlyTheThresholdIsNotSlow() throws {
        let clock = ManualClock()
        var configuration = ratio(0.5, window: .seconds(60), minimum: 10)
        configuration.slowCalls = .init(threshold: .seconds(1), rate: 0.5)
        let ratioBreaker = try CircuitBreaker(key: "ratio", configuration: configuration, clock: clock)
        for _ in 0..<10 { call(ratioBreaker, on: clock, taking: .seconds(1)) }
        #expect(ratioBreaker.state == .closed, "10 calls of exactly the threshold: none slow")

        let consecutive = try CircuitBreaker(
            key: "consecutive",
            configuration: .init(
                mode: .consecutiveFailures(threshold: 1), slowCalls: .init(threshold: .seconds(1))),
            clock: clock)
        call(consecutive, on: clock, taking: .seconds(1))
        #expect(consecutive.state == .closed, "exactly the threshold")
        call(consecutive, on: clock, taking: .seconds(1) + .nanoseconds(1))
        #expect(consecutive.state == .open, "a nanosecond over the threshold is slow")
    }

    @Test("half-open under 50 concurrent callers lets exactly one probe through, 200 rounds out of 200")
    func oneProbeUnderContention() async throws {
        for _ in 0..<200 {
            let clock = ManualClock()
            let breaker = try CircuitBreaker(key: "wallet", clock: clock)
            fail(breaker, times: 5)
            clock.advance(by: .seconds(60))
            let probes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 { group.addTask { (try? breaker.acquire())?.isProbe ?? false } }
                var probes = 0
                for await isProbe in group where isProbe { probes += 1 }
                return probes
            }
            #expect(probes == 1)
        }
    }
}
