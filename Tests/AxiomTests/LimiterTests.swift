import Axiom
import AxiomTesting
import MetricsTestKit
import Testing

@Suite("Concurrency limiter")
struct ConcurrencyLimiterTests {
    @Test("at most `limit` calls run, the queue holds the next ones in order, the rest are refused")
    func limitsQueuesAndRefuses() async throws {
        let clock = ManualClock()
        let metrics = TestMetrics()
        let limiter = try ConcurrencyLimiter(key: "relay", limit: 2, queueLimit: 1, metrics: metrics)
        let stage = ConcurrencyLimiterStage(limiter)
        let order = AttemptLog()
        func call(_ number: Int, for duration: Duration) -> Task<Int, any Error> {
            Task {
                try await stage.run("send") { () async throws -> Int in
                    order.append(number)
                    try await clock.sleep(for: duration)
                    return number
                }
            }
        }
        // One at a time, so that the order they entered in is the order they were called in.
        let first = call(1, for: .seconds(5))
        await clock.waitForSleepers(1)
        let second = call(2, for: .seconds(10))
        await clock.waitForSleepers(2)
        let third = call(3, for: .seconds(1))
        while limiter.queued < 1 { await Task.yield() }
        #expect(limiter.inFlight == 2)
        let refused = await #expect(throws: ConcurrencyLimitError.self) {
            try await stage.run("send") { () async throws -> Int in 4 }
        }
        #expect(refused?.limit == 2)
        #expect(refused?.queueLimit == 1)
        #expect(ErrorRegistry().identity(of: refused!).code == ConcurrencyLimitError.code)

        clock.advance(by: .seconds(5))
        #expect(try await first.value == 1)
        await clock.waitForSleepers(2)
        #expect(order.values == [1, 2, 3], "the queued call took the first free slot")
        clock.advance(by: .seconds(5))
        #expect(try await second.value == 2)
        #expect(try await third.value == 3)
        #expect(limiter.inFlight == 0)
        #expect(limiter.queued == 0)
        #expect(
            try metrics.expectCounter("axiom_concurrency_limiter_rejections_total", [("key", "relay")]).totalValue
                == 1)
        #expect(try metrics.expectGauge("axiom_concurrency_limiter_in_flight", [("key", "relay")]).lastValue == 0)
        #expect(try metrics.expectGauge("axiom_concurrency_limiter_queued", [("key", "relay")]).values.contains(1))
    }

    @Test("a queued call whose task is cancelled leaves the queue with CancellationError")
    func cancelledWhileQueued() async throws {
        let clock = ManualClock()
        let limiter = try ConcurrencyLimiter(key: "relay", limit: 1, queueLimit: 2)
        let running = Task { try await limiter.run { try await clock.sleep(for: .seconds(5)) } }
        await clock.waitForSleepers(1)
        let queued = Task { try await limiter.run { 1 } }
        while limiter.queued < 1 { await Task.yield() }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        #expect(limiter.queued == 0)
        clock.advance(by: .seconds(5))
        try await running.value
        #expect(limiter.inFlight == 0)
    }

    @Test("limits out of range are refused at construction")
    func invalidLimits() {
        #expect(throws: ResilienceConfigurationError.self) { try ConcurrencyLimiter(key: "x", limit: 0) }
        #expect(throws: ResilienceConfigurationError.self) {
            try ConcurrencyLimiter(key: "x", limit: 1, queueLimit: -1)
        }
        #expect(throws: ResilienceConfigurationError.self) { try ConcurrencyLimiters(limit: 0) }
    }

    @Test("one limiter per key")
    func onePerKey() throws {
        let limiters = try ConcurrencyLimiters(limit: 3)
        #expect(limiters.limiter(for: "a") === limiters.limiter(for: "a"))
        #expect(limiters.limiter(for: "a") !== limiters.limiter(for: "b"))
    }
}

@Suite("Rate limiter")
struct RateLimiterTests {
    @Test("token bucket: a burst of `capacity`, then the refill rate; a refusal says when the next token comes")
    func tokenBucket() throws {
        let clock = ManualClock()
        let limiter = try RateLimiter(
            key: "api", algorithm: .tokenBucket(capacity: 2, tokensPerPeriod: 1, period: .seconds(1)), clock: clock)
        try limiter.acquire()
        try limiter.acquire()
        let refused = try #require(throws: RateLimitError.self) { try limiter.acquire() }
        #expect(refused.retryAfter == .seconds(1))
        #expect(
            ErrorRegistry().identity(of: refused) == ErrorIdentity(code: RateLimitError.code, retryAfter: .seconds(1)))
        clock.advance(by: .milliseconds(400))
        let sooner = try #require(throws: RateLimitError.self) { try limiter.acquire() }
        #expect(sooner.retryAfter == .milliseconds(600))
        clock.advance(by: .milliseconds(600))
        try limiter.acquire()
        clock.advance(by: .seconds(60))
        try limiter.acquire()
        try limiter.acquire()
        #expect(throws: RateLimitError.self) { try limiter.acquire() }
    }

    @Test("sliding window: at most `limit` in a window begun by a segment; a refusal says when the oldest calls leave")
    func slidingWindow() throws {
        let clock = ManualClock()
        let limiter = try RateLimiter(
            key: "api", algorithm: .slidingWindow(limit: 3, window: .seconds(10), segments: 10), clock: clock)
        try limiter.acquire()
        clock.advance(by: .seconds(4))
        try limiter.acquire()
        try limiter.acquire()
        clock.advance(by: .seconds(1))
        let refused = try #require(throws: RateLimitError.self) { try limiter.acquire() }
        #expect(refused.retryAfter == .seconds(5), "the call of t=0 leaves the window at t=10")
        let two = try #require(throws: RateLimitError.self) { try limiter.acquire(permits: 2) }
        #expect(two.retryAfter == .seconds(9), "two permits need the calls of t=4 gone too")
        clock.advance(by: .seconds(5))
        try limiter.acquire()
        #expect(throws: RateLimitError.self) { try limiter.acquire() }
    }

    @Test(
        "sliding window holds the limit to within one segment: limit 10 per second admits 19 calls within 901 ms")
    func slidingWindowWithinOneSegment() throws {
        let clock = ManualClock()
        let limiter = try RateLimiter(
            key: "api", algorithm: .slidingWindow(limit: 10, window: .seconds(1), segments: 10), clock: clock)
        /// How many of `calls` calls made now are admitted.
        func admitted(_ calls: Int) -> Int { (0..<calls).count { _ in (try? limiter.acquire()) != nil } }

        #expect(admitted(1) == 1, "0 ms: the segment of 0 to 100 ms begins")
        clock.advance(by: .milliseconds(99))
        #expect(admitted(10) == 9, "99 ms: the same segment, full")
        let refused = try #require(throws: RateLimitError.self) { try limiter.acquire() }
        #expect(refused.retryAfter == .milliseconds(901), "the whole segment leaves at 1,000 ms")
        clock.advance(by: .milliseconds(900))
        #expect(admitted(1) == 0, "999 ms: the segment is still in the window")
        clock.advance(by: .milliseconds(1))
        #expect(admitted(11) == 10, "1,000 ms: the segment of 0 ms left, all its permits at once")
        // 9 calls at 99 ms and 10 at 1,000 ms: 19 within 901 ms, the limit plus what the segment open at 99 ms
        // admitted from then on. The window that began with that segment (0 to 1,000 ms) admitted 10, and so does
        // the one that begins with the next (1,000 to 2,000 ms):
        clock.advance(by: .milliseconds(999))
        #expect(admitted(1) == 0, "1,999 ms: 10 already in the window that began at 1,000 ms")
        clock.advance(by: .milliseconds(1))
        #expect(admitted(11) == 10)
    }

    @Test("through the stage a refusal is a registered error the retry engine can wait on")
    func stageRefusalIsRetriedAfterItsWait() async throws {
        let clock = ManualClock()
        let limiter = try RateLimiter(
            key: "api", algorithm: .tokenBucket(capacity: 1, tokensPerPeriod: 1, period: .seconds(2)), clock: clock)
        let calls = CallCounter()
        let chain = OperationChain {
            RetryStage(
                configuration: .init(fixedPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant, delay: .seconds(30))),
                clock: clock)
            RateLimiterStage(limiter)
        }
        #expect(try await chain.run("send") { () async throws -> Int in calls.next() } == 1)
        let task = Task { try await chain.run("send") { () async throws -> Int in calls.next() } }
        await clock.drive(1)
        #expect(try await task.value == 2)
        #expect(clock.requestedSleeps == [.seconds(2)], "the Retry-After of the refusal, not the 30 s backoff")
    }

    @Test("settings out of range are refused at construction")
    func invalidSettings() {
        for algorithm: RateLimiter.Algorithm in [
            .tokenBucket(capacity: 0, tokensPerPeriod: 1, period: .seconds(1)),
            .tokenBucket(capacity: 1, tokensPerPeriod: 0, period: .seconds(1)),
            .tokenBucket(capacity: 1, tokensPerPeriod: 1, period: .zero),
            .slidingWindow(limit: 0, window: .seconds(1), segments: 1),
            .slidingWindow(limit: 1, window: .zero, segments: 1),
            .slidingWindow(limit: 1, window: .seconds(1), segments: 0),
        ] {
            #expect(throws: ResilienceConfigurationError.self) {
                try RateLimiter(key: "x", algorithm: algorithm, clock: ManualClock())
            }
        }
    }
}
