import Axiom
import AxiomTesting
import Synchronization
import Testing

/// An attempt that timed out is worth another try; an operation that timed out has spent its time.
@Suite("Timeouts and retries")
struct TimeoutRetryTests {
    @Test("the registry retries an attempt timeout and never a total timeout")
    func descriptorsDecide() throws {
        let registry = ErrorRegistry()
        let attempt = try #require(registry.descriptor(for: TimeoutError.attemptCode))
        let total = try #require(registry.descriptor(for: TimeoutError.code))
        #expect(attempt.retry?.maxAttempts == 3)
        #expect(attempt.disposition == .recover)
        #expect(total.retry == nil)
        #expect(TimeoutError(operation: "x", limit: .seconds(1), scope: .attempt).errorCode == TimeoutError.attemptCode)
        #expect(TimeoutError(operation: "x", limit: .seconds(1)).errorCode == TimeoutError.code)
    }

    @Test(
        "a registry-driven retry stage makes 3 calls on attempt timeouts and 1 on a total timeout",
        arguments: [(TimeoutError.Scope.attempt, 3), (.operation, 1)])
    func registryDrivenRetry(scope: TimeoutError.Scope, calls expected: Int) async throws {
        let clock = ManualClock()
        let retry = RetryStage(
            configuration: .init(registry: ErrorRegistry(), random: RandomSource(seed: 3)), clock: clock)
        let calls = CallCounter()
        let task = Task {
            try await retry.run("read") { () async throws -> Int in
                calls.next()
                throw TimeoutError(operation: "read", limit: .seconds(1), scope: scope)
            }
        }
        await clock.drive(expected - 1)
        let error = await #expect(throws: TimeoutError.self) { try await task.value }
        #expect(error?.scope == scope)
        #expect(calls.count == expected)
        for wait in clock.requestedSleeps { #expect(wait <= .seconds(5), "the attempt timeout's maxDelay") }
    }

    @Test("a registry-driven retry stage retries an attempt that AttemptTimeoutStage cut off, and succeeds")
    func attemptTimeoutStageIsRetriedByTheRegistry() async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let waits = WaitLog()
        let chain = OperationChain {
            RetryStage(
                configuration: .init(
                    registry: ErrorRegistry(), random: RandomSource(seed: 1),
                    onRetry: { failed, wait in waits.append(failed.identity.code, wait) }), clock: clock
            )
            AttemptTimeoutStage(.seconds(5), clock: clock)
        }
        let task = Task {
            try await chain.run("register") { () async throws -> Int in
                if calls.next() == 1 { try await clock.sleep(for: .seconds(30)) }
                return 7
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        // The attempt timed out (the timer, with nothing left to watch, stopped) and the retry waits a jittered
        // time within the attempt timeout's maxDelay: 5 s more wakes it.
        await clock.waitForRequestedSleeps(3)
        clock.advance(by: .seconds(5))
        #expect(try await task.value == 7)
        #expect(calls.count == 2)
        #expect(waits.values.map(\.0) == [TimeoutError.attemptCode])
        #expect(waits.values.allSatisfy { $0.1 <= .seconds(5) })
    }

    @Test("a total timeout around a registry-driven retry ends the operation: no retry after it")
    func totalTimeoutIsFinal() async throws {
        let clock = ManualClock()
        let calls = CallCounter()
        let chain = OperationChain {
            TimeoutStage(.seconds(5), clock: clock)
            RetryStage(configuration: .init(registry: ErrorRegistry()), clock: clock)
        }
        let task = Task {
            try await chain.run("register") { () async throws -> Int in
                calls.next()
                try await clock.sleep(for: .seconds(30))
                return 7
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        let error = await #expect(throws: TimeoutError.self) { try await task.value }
        #expect(error?.scope == .operation)
        #expect(error?.errorCode == TimeoutError.code)
        #expect(calls.count == 1)
    }
}

final class WaitLog: Sendable {
    private let storage = Mutex<[(ErrorCode, Duration)]>([])
    func append(_ code: ErrorCode, _ wait: Duration) { storage.withLock { $0.append((code, wait)) } }
    var values: [(ErrorCode, Duration)] { storage.withLock { $0 } }
}

/// The system clocks take their own path through the timeout stage (a coarse clock reading per call), which only
/// the real clock can exercise: these two tests wait a few tens of milliseconds of real time.
@Suite("Timeout stage on the system clock")
struct TimeoutSystemClockTests {
    @Test("a call over the limit is cut off, no earlier than the limit")
    func neverEarly() async throws {
        let clock = ContinuousClock()
        let stage = TimeoutStage(.milliseconds(40), clock: clock)
        // In a task of its own: the timeout cancels the calling task, which must not be the test's.
        let task = Task { () -> (Duration, (any Error)?) in
            let start = clock.now
            do {
                _ = try await stage.run("slow") { () async throws -> Int in
                    try await Task.sleep(for: .seconds(3600))
                    return 1
                }
                return (start.duration(to: clock.now), nil)
            } catch {
                return (start.duration(to: clock.now), error)
            }
        }
        let (elapsed, error) = await task.value
        #expect(error is TimeoutError)
        #expect(elapsed >= .milliseconds(40), "\(elapsed)")
        // No upper bound: under a loaded test run the pool's threads may all be busy for seconds; the TimeoutError
        // (not a value after an hour) shows the timer fired.
    }

    @Test("calls within the limit keep their values and their tasks uncancelled")
    func withinTheLimit() async throws {
        let stage = TimeoutStage(.seconds(30), clock: SuspendingClock())
        for index in 0..<100 {
            let (value, cancelled) = try await stage.run("fast") { (index, Task.isCancelled) }
            #expect(value == index)
            #expect(!cancelled)
        }
    }
}
