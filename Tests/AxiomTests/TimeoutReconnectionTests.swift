import Axiom
import AxiomTesting
import Synchronization
import Testing

@Suite("Timeout and reconnection")
struct TimeoutReconnectionTests {
    @Test("a call longer than the limit is cancelled and fails with TimeoutError")
    func timesOut() async throws {
        let clock = ManualClock()
        let stage = TimeoutStage(.seconds(5), clock: clock)
        let cancelled = Flag(false)
        let task = Task {
            try await stage.run("register") { () async throws -> Int in
                do {
                    try await clock.sleep(for: .seconds(30))
                } catch {
                    cancelled.set(true)
                    throw error
                }
                return 1
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        let error = await #expect(throws: TimeoutError.self) { try await task.value }
        #expect(error?.limit == .seconds(5))
        #expect(error?.operation == "register")
        #expect(cancelled.isOn, "the work saw the cancellation before the stage returned")
    }

    @Test("a call within the limit returns its value")
    func withinLimit() async throws {
        let clock = ManualClock()
        let stage = TimeoutStage(.seconds(5), clock: clock)
        let value = try await stage.run("quick") { 42 }
        #expect(value == 42)
    }

    @Test("a reconnection policy gives up after its tries, its interval apart, with the code it was given")
    func reconnectionGivesUp() async throws {
        struct NotRegistered: Error {}
        let clock = ManualClock()
        let tries = CallCounter()
        let states = StateLog()
        let notRegistered = ErrorCode("telnyx", "GATEWAY_NOT_REGISTERED")
        let policy = ReconnectionPolicy.failing(with: notRegistered, maxAttempts: 3, interval: .seconds(3))
        let task = Task {
            try await policy.run(clock: clock, onState: { states.append($0) }) {
                _ async throws -> Void in
                tries.next()
                throw NotRegistered()
            }
        }
        await clock.drive(2)
        let error = await #expect(throws: DomainError.self) { try await task.value }
        #expect(error?.errorCode == notRegistered)
        #expect(error?.metadata["lastError"] == "NotRegistered()")
        #expect(tries.count == 3)
        #expect(clock.requestedSleeps == [.seconds(3), .seconds(3)])
        #expect(states.values.last == .failed(attempts: 3))
    }

    @Test("reconnection stops trying once a try succeeds")
    func reconnectionSucceeds() async throws {
        let clock = ManualClock()
        let tries = CallCounter()
        let task = Task {
            try await ReconnectionPolicy.failing(with: ErrorCode("acme", "OFFLINE")).run(clock: clock) {
                attempt async throws -> Int in
                tries.next()
                if attempt < 2 { throw CapabilityError.validationTimeout }
                return attempt
            }
        }
        await clock.drive(1)
        #expect(try await task.value == 2)
        #expect(tries.count == 2)
    }
}

final class StateLog: Sendable {
    private let storage = Mutex<[ReconnectionPolicy.State]>([])
    func append(_ state: ReconnectionPolicy.State) { storage.withLock { $0.append(state) } }
    var values: [ReconnectionPolicy.State] { storage.withLock { $0 } }
}

extension ManualClock {
    /// Waits, yielding, until at least `count` sleeps were requested: for sleeps that start after another task
    /// has reacted to an `advance`.
    func waitForRequestedSleeps(_ count: Int) async {
        while requestedSleeps.count < count { await Task.yield() }
    }
}

@Suite("Timeout stages")
struct TimeoutStageTests {
    struct Down: Error {}

    @Test("a call within the limit leaves its task uncancelled, and later calls are watched afresh")
    func happyPathLeavesTaskAlone() async throws {
        let clock = ManualClock()
        let stage = TimeoutStage(.seconds(5), clock: clock)
        for value in 0..<3 {
            #expect(try await stage.run("quick") { value } == value)
            #expect(!Task.isCancelled)
        }
        // The timer wakes at the first deadline and finds nothing overdue.
        clock.advance(by: .seconds(6))
        #expect(try await stage.run("quick") { 9 } == 9)
        #expect(!Task.isCancelled)
    }

    @Test("only overdue calls are cancelled: a call that started later keeps running")
    func onlyOverdueCallsAreCancelled() async throws {
        let clock = ManualClock()
        let stage = TimeoutStage(.seconds(5), clock: clock)
        let first = Task {
            try await stage.run("first") { () async throws -> Int in
                try await clock.sleep(for: .seconds(30))
                return 1
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(3))
        let second = Task {
            try await stage.run("second") { () async throws -> Int in
                try await clock.sleep(for: .seconds(4))
                return 2
            }
        }
        await clock.waitForSleepers(3)
        clock.advance(by: .seconds(2))
        await #expect(throws: TimeoutError.self) { try await first.value }
        clock.advance(by: .seconds(2))
        #expect(try await second.value == 2)
    }

    @Test("the caller's own cancellation is a CancellationError, not a timeout")
    func callerCancellationIsNotATimeout() async throws {
        let clock = ManualClock()
        let stage = TimeoutStage(.seconds(5), clock: clock)
        let task = Task {
            try await stage.run("slow") { () async throws -> Int in
                try await clock.sleep(for: .seconds(30))
                return 1
            }
        }
        await clock.waitForSleepers(2)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("a per-attempt timeout inside a retry cancels the attempt alone, and the retry tries again")
    func attemptTimeoutIsRetried() async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let chain = OperationChain {
            RetryStage(
                configuration: .init(fixedPolicy: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(1))),
                clock: clock)
            AttemptTimeoutStage(.seconds(5), clock: clock)
        }
        let task = Task {
            let value = try await chain.run("register") { () async throws -> Int in
                if calls.next() == 1 { try await clock.sleep(for: .seconds(30)) }
                return 7
            }
            return (value, Task.isCancelled)
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        // The timer fired, the attempt stopped, the retry waits 1 s.
        await clock.waitForRequestedSleeps(3)
        #expect(clock.requestedSleeps.sorted() == [.seconds(1), .seconds(5), .seconds(30)])
        clock.advance(by: .seconds(1))
        let (value, cancelled) = try await task.value
        #expect(value == 7)
        #expect(calls.count == 2)
        #expect(!cancelled, "the caller's task was not cancelled by the attempt's timeout")
    }

    @Test("a per-attempt timeout on its own throws TimeoutError with the attempt's limit")
    func attemptTimeoutAlone() async throws {
        let clock = ManualClock()
        let stage = AttemptTimeoutStage(.seconds(2), clock: clock)
        let task = Task {
            try await stage.run("probe") { () async throws -> Int in
                try await clock.sleep(for: .seconds(10))
                return 1
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(2))
        let error = await #expect(throws: TimeoutError.self) { try await task.value }
        #expect(error?.limit == .seconds(2))
        #expect(error?.operation == "probe")
    }
}

@Suite("Timeout stage under load")
struct TimeoutStageLoadTests {
    @Test("200 calls timed out one after another, each task cancelled once and released cleanly")
    func manyTimeouts() async throws {
        let clock = ManualClock()
        let stage = TimeoutStage(.seconds(1), clock: clock)
        for round in 0..<200 {
            let task = Task {
                try await stage.run("slow") { () async throws -> Int in
                    try await clock.sleep(for: .seconds(10))
                    return round
                }
            }
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(1))
            await #expect(throws: TimeoutError.self) { try await task.value }
            // The work's cancelled sleep and the timer's next sleep: let the timer settle before the next round.
            while clock.sleeperCount > 1 { await Task.yield() }
        }
    }
}
