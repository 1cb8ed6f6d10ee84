import Axiom
import AxiomTesting
import Synchronization
import Testing

final class EventLog: Sendable {
    private let storage = Mutex<[ResilienceEvent]>([])
    func append(_ event: ResilienceEvent) { storage.withLock { $0.append(event) } }
    var values: [ResilienceEvent] { storage.withLock { $0 } }
}

@Suite("Retry budget")
struct RetryBudgetTests {
    struct Flaky: Error {}

    /// Three calls in all, no wait between them: a retry costs no clock time, so only the budget limits it.
    static let threeCalls = RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .zero)

    @Test("retries stop when the budget is spent, the error passing on as it is, and come back a window later")
    func retriesStopAndComeBack() async throws {
        let clock = ManualClock()
        // No ratio: a reserve of 1 retry a second over 2 s, so 2 retries a window.
        let budget = try RetryBudget(ratio: 0, minRetriesPerSecond: 1, window: .seconds(2), clock: clock)
        let retry = RetryStage(configuration: .init(fixedPolicy: Self.threeCalls, budget: budget), clock: clock)
        func callsOfAFailingOperation() async -> Int {
            let calls = CallCounter()
            await #expect(throws: Flaky.self) {
                try await retry.run("sync") { () async throws -> Int in
                    calls.next()
                    throw Flaky()
                }
            }
            return calls.count
        }
        #expect(await callsOfAFailingOperation() == 3, "two retries from the reserve")
        #expect(await callsOfAFailingOperation() == 1, "the budget is spent: no retry, the error as it was")
        #expect(budget.refusals == 1)
        clock.advance(by: .seconds(1))
        #expect(await callsOfAFailingOperation() == 1, "half a window later the retries are still spent")
        clock.advance(by: .seconds(1))
        #expect(budget.available == 2)
        #expect(await callsOfAFailingOperation() == 3, "a window later the reserve is back")
    }

    @Test("calls earn retries: a ratio of 0.5 allows one retry for every two calls")
    func callsEarnRetries() async throws {
        let clock = ManualClock()
        let budget = try RetryBudget(ratio: 0.5, minRetriesPerSecond: 0, window: .seconds(10), clock: clock)
        let retry = RetryStage(configuration: .init(fixedPolicy: Self.threeCalls, budget: budget), clock: clock)
        #expect(budget.available == 0)
        for _ in 0..<4 { #expect(try await retry.run("read") { 1 } == 1) }
        #expect(budget.available == 2, "four calls earned two retries")
        let calls = CallCounter()
        let value = try await retry.run("read") { () async throws -> Int in
            if calls.next() < 3 { throw Flaky() }
            return 7
        }
        #expect(value == 7)
        #expect(calls.count == 3)
        // The fifth call earned half a retry: not enough for one.
        #expect(budget.available == 0)
        clock.advance(by: .seconds(10))
        #expect(budget.available == 0, "deposits expire with the window")
    }

    @Test("a hedging stage and a retry stage given one budget take from the same pool")
    func hedgingAndRetryShareThePool() async throws {
        let clock = ManualClock()
        let budget = try RetryBudget(ratio: 0, minRetriesPerSecond: 1, window: .seconds(1), clock: clock)
        let retry = RetryStage(configuration: .init(fixedPolicy: Self.threeCalls, budget: budget), clock: clock)
        let hedging = try HedgingStage(maxHedges: 2, delay: .seconds(60), clock: clock, budget: budget)

        // The retry stage takes the one retry of the window.
        let retried = CallCounter()
        #expect(
            try await retry.run("write") { () async throws -> Int in
                if retried.next() == 1 { throw Flaky() }
                return 1
            } == 1)
        #expect(retried.count == 2)

        // A failure would start a hedge at once, but the pool is empty: one attempt, its error.
        let hedged = CallCounter()
        await #expect(throws: Flaky.self) {
            try await hedging.run("read") { () async throws -> Int in
                hedged.next()
                throw Flaky()
            }
        }
        #expect(hedged.count == 1)
        #expect(budget.refusals == 1)

        // A window later the hedging stage takes the retry, and the retry stage finds none.
        clock.advance(by: .seconds(1))
        let hedgedAgain = AttemptLog()
        let value = try await hedging.run(context: OperationContext(name: "read")) { context -> Int in
            hedgedAgain.append(context.attempt)
            if context.attempt == 1 { throw Flaky() }
            return context.attempt
        }
        #expect(value == 2)
        #expect(hedgedAgain.values.sorted() == [1, 2])
        let refused = CallCounter()
        await #expect(throws: Flaky.self) {
            try await retry.run("write") { () async throws -> Int in
                refused.next()
                throw Flaky()
            }
        }
        #expect(refused.count == 1)
        #expect(budget.refusals == 2)
    }

    @Test("a hedge the budget refuses is not started after the delay; the running attempt decides the call")
    func delayedHedgeRefused() async throws {
        let clock = ManualClock()
        let budget = try RetryBudget(ratio: 0.001, minRetriesPerSecond: 0, window: .seconds(600), clock: clock)
        let events = EventLog()
        let telemetry = ResilienceTelemetry(pipeline: "reads", onEvent: { events.append($0) })
        let hedging = try HedgingStage(
            maxHedges: 1, delay: .seconds(1), clock: clock, telemetry: telemetry, budget: budget)
        let seen = AttemptLog()
        let task = Task {
            try await hedging.run(context: OperationContext(name: "read")) { context -> String in
                seen.append(context.attempt)
                try await clock.sleep(for: .seconds(5))
                return "primary"
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(try await task.value == "primary")
        #expect(seen.values == [1], "no hedge was started")
        #expect(events.values.map(\.name) == ["budgetExhausted"])
        #expect(events.values.first?.outcome == "delay")
    }

    @Test("a retry the budget refuses is reported as a budgetExhausted event with the error's code")
    func refusalIsReported() async throws {
        let clock = ManualClock()
        let budget = try RetryBudget(ratio: 0.001, minRetriesPerSecond: 0, window: .seconds(600), clock: clock)
        let events = EventLog()
        let telemetry = ResilienceTelemetry(pipeline: "payments", onEvent: { events.append($0) })
        let retry = RetryStage(
            configuration: .init(registry: try nwcRegistry(), telemetry: telemetry, budget: budget), clock: clock
        )
        await #expect(throws: DomainError.self) {
            try await retry.run("pay") { () async throws -> Int in throw nwc("INTERNAL") }
        }
        #expect(events.values.map(\.name) == ["budgetExhausted"])
        #expect(events.values.first?.outcome == "nwc/INTERNAL")
        #expect(events.values.first?.attempt == 1)
        #expect(clock.requestedSleeps.isEmpty, "no wait for a retry that will not be made")
    }

    @Test("the pipeline's Recover and FollowDescriptor take their retries from the budget too")
    func handlersDrawFromTheBudget() throws {
        let clock = ManualClock()
        let registry = try nwcRegistry()
        let budget = try RetryBudget(ratio: 0, minRetriesPerSecond: 1, window: .seconds(1), clock: clock)
        let event = ErrorEvent(error: nwc("INTERNAL"), layer: .client, operation: "pay", registry: registry)
        let follow = FollowDescriptor(budget: budget)
        let recover = Recover(.any, .retry(RetryPolicy(maxAttempts: 3), budget: budget))
        guard case .recover = follow.decide(event) else {
            Issue.record("the first retry is in the budget")
            return
        }
        guard case .pass = try recover.decide(event) else {
            Issue.record("the budget is spent: Recover passes")
            return
        }
        guard case .pass = follow.decide(event) else {
            Issue.record("the budget is spent: FollowDescriptor passes")
            return
        }
        #expect(budget.refusals == 2)
    }

    @Test("many tasks depositing and withdrawing at once are counted exactly")
    func concurrentAccountingIsExact() async throws {
        let clock = ManualClock()
        // A reserve of 50 retries; 500 calls at 0.2 earn 100 more.
        let budget = try RetryBudget(ratio: 0.2, minRetriesPerSecond: 5, window: .seconds(10), clock: clock)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<500 { group.addTask { budget.recordCall() } }
        }
        #expect(budget.available == 150)
        let granted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<400 { group.addTask { budget.tryRetry() } }
            var granted = 0
            for await ok in group where ok { granted += 1 }
            return granted
        }
        #expect(granted == 150)
        #expect(budget.refusals == 250)
        #expect(budget.available == 0)
    }

    @Test("options that cannot work are refused")
    func invalidOptions() {
        #expect(throws: ResilienceConfigurationError.self) { try RetryBudget(ratio: -0.1) }
        #expect(throws: ResilienceConfigurationError.self) { try RetryBudget(ratio: .nan) }
        #expect(throws: ResilienceConfigurationError.self) { try RetryBudget(minRetriesPerSecond: -1) }
        #expect(throws: ResilienceConfigurationError.self) { try RetryBudget(window: .zero) }
        #expect(throws: ResilienceConfigurationError.self) { try RetryBudget(ratio: 0, minRetriesPerSecond: 0) }
    }

    @Test("the defaults: 20 % of calls over 10 s, and a reserve of 10 retries a second")
    func defaults() throws {
        let budget = try RetryBudget(clock: ManualClock())
        #expect(budget.ratio == 0.2)
        #expect(budget.minRetriesPerSecond == 10)
        #expect(budget.window == .seconds(10))
        #expect(budget.available == 100)
    }
}
