import Axiom
import AxiomTesting
import Testing

@Suite("Retry stage")
struct RetryTests {
    @Test("exponential backoff waits 1, 2 and 4 seconds without jitter")
    func exponentialDelays() async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let retry = RetryStage(configuration: .init(registry: try nwcRegistry()), clock: clock)
        let task = Task {
            try await retry.run("pay") { () async throws -> String in
                if calls.next() <= 3 { throw nwc("INTERNAL") }
                return "paid"
            }
        }
        await clock.drive(3)
        #expect(try await task.value == "paid")
        #expect(calls.count == 4)
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(2), .seconds(4)])
    }

    @Test("jittered exponential waits are decorrelated, capped at maxDelay, and not all alike")
    func jitteredDelaysInBounds() async throws {
        let clock = ManualClock()
        let registry = try nwcRegistry()
        let policy = try #require(registry.descriptor(for: ErrorCode("nwc", "PAYMENT_FAILED"))?.retry)
        let retry = RetryStage(configuration: .init(registry: registry, random: RandomSource(seed: 42)), clock: clock)
        let task = Task {
            try await retry.run("pay") { () async throws -> Int in throw nwc("PAYMENT_FAILED") }
        }
        await clock.drive(5)
        await #expect(throws: DomainError.self) { try await task.value }
        let sleeps = clock.requestedSleeps
        #expect(sleeps.count == 5)
        for (index, sleep) in sleeps.enumerated() {
            #expect(policy.jitterRange(forRetry: index + 1).contains(sleep), "\(sleep)")
            #expect(sleep >= .zero && sleep <= .seconds(10))
        }
        #expect(Set(sleeps).count > 1, "jitter varies the waits")
    }

    @Test("constant jitter stays within ±25 % of the delay, however many retries")
    func constantJitterKeepsItsShape() async throws {
        struct Flaky: Error {}
        let clock = ManualClock()
        let policy = RetryPolicy(maxAttempts: 11, backoff: .constant, delay: .seconds(2), jitter: true)
        let retry = RetryStage(
            configuration: .init(registry: try nwcRegistry(), defaultPolicy: policy, random: RandomSource(seed: 7)),
            clock: clock
        )
        let task = Task { try await retry.run("sync") { () async throws -> Int in throw Flaky() } }
        await clock.drive(10)
        await #expect(throws: Flaky.self) { try await task.value }
        let sleeps = clock.requestedSleeps
        #expect(sleeps.count == 10)
        for sleep in sleeps {
            #expect(sleep >= .milliseconds(1500) && sleep <= .milliseconds(2500), "\(sleep)")
        }
        #expect(Set(sleeps).count > 1, "jitter varies the waits")
    }

    @Test("NWC RATE_LIMITED waits 60 seconds before the retry")
    func rateLimitedWaitsSixtySeconds() async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let retry = RetryStage(configuration: .init(registry: try nwcRegistry()), clock: clock)
        let task = Task {
            try await retry.run("pay") { () async throws -> String in
                if calls.next() == 1 { throw nwc("RATE_LIMITED") }
                return "paid"
            }
        }
        await clock.waitForSleepers(1)
        #expect(calls.count == 1)
        clock.advance(by: .seconds(59))
        #expect(clock.sleeperCount == 1, "still waiting after 59 s")
        clock.advance(by: .seconds(1))
        #expect(try await task.value == "paid")
        #expect(clock.requestedSleeps == [.seconds(60)])
    }

    @Test(
        "codes that must never be retried fail after one call",
        arguments: ["INSUFFICIENT_BALANCE", "UNAUTHORIZED", "NOT_IMPLEMENTED"])
    func nonRetryableCodes(code: String) async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let retry = RetryStage(
            configuration: .init(registry: try nwcRegistry(), defaultPolicy: RetryPolicy(maxAttempts: 5)), clock: clock)
        await #expect(throws: DomainError.self) {
            try await retry.run("pay") { () async throws -> Int in
                calls.next()
                throw nwc(code)
            }
        }
        #expect(calls.count == 1)
        #expect(clock.requestedSleeps.isEmpty)
    }

    @Test("a Retry-After carried by the error replaces the computed wait")
    func honoursRetryAfter() async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let retry = RetryStage(configuration: .init(registry: try nwcRegistry()), clock: clock)
        let task = Task {
            try await retry.run("pay") { () async throws -> Int in
                if calls.next() == 1 { throw nwc("INTERNAL", retryAfter: .seconds(7)) }
                return 1
            }
        }
        await clock.drive(1)
        #expect(try await task.value == 1)
        #expect(clock.requestedSleeps == [.seconds(7)])
    }

    @Test("cancellation stops a retry at once, during the wait")
    func cancellationStopsRetry() async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let retry = RetryStage(configuration: .init(registry: try nwcRegistry()), clock: clock)
        let task = Task {
            try await retry.run("pay") { () async throws -> Int in
                calls.next()
                throw nwc("RATE_LIMITED")
            }
        }
        await clock.waitForSleepers(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(calls.count == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test("errors the registry does not know follow the default policy, and a predicate can veto")
    func defaultPolicyAndPredicate() async throws {
        struct Flaky: Error {}
        let clock = ManualClock()
        let calls = CallCounter()
        let retry = RetryStage(
            configuration: .init(
                registry: try nwcRegistry(),
                defaultPolicy: RetryPolicy(maxAttempts: 3, backoff: .linear, delay: .seconds(2))), clock: clock
        )
        let task = Task {
            try await retry.run("sync") { () async throws -> Int in
                calls.next()
                throw Flaky()
            }
        }
        await clock.drive(2)
        await #expect(throws: Flaky.self) { try await task.value }
        #expect(calls.count == 3)
        #expect(clock.requestedSleeps == [.seconds(2), .seconds(4)])

        let vetoed = CallCounter()
        let strict = RetryStage(
            configuration: .init(
                registry: try nwcRegistry(), defaultPolicy: RetryPolicy(maxAttempts: 3), shouldRetry: { $0.attempt < 1 }
            ), clock: clock
        )
        await #expect(throws: Flaky.self) {
            try await strict.run("sync") { () async throws -> Int in
                vetoed.next()
                throw Flaky()
            }
        }
        #expect(vetoed.count == 1)
    }
}
