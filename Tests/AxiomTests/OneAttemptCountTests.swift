import Axiom
import AxiomTesting
import Synchronization
import Testing

/// A stage that notes the attempt number each call carries.
struct AttemptNoter: OperationMiddleware {
    let seen: AttemptLog

    nonisolated(nonsending) func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        seen.append(context.attempt)
        return try await next(context)
    }
}

final class AttemptLog: Sendable {
    private let storage = Mutex<[Int]>([])
    func append(_ attempt: Int) { storage.withLock { $0.append(attempt) } }
    var values: [Int] { storage.withLock { $0 } }
}

/// One retry engine, one attempt count: a descriptor's policy is applied once per operation, whoever retries.
@Suite("One attempt count per operation")
struct OneAttemptCountTests {
    func configuration(_ registry: ErrorRegistry, _ clock: ManualClock) -> PipelineConfiguration {
        PipelineConfiguration(registry: registry, observers: [], clock: clock)
    }

    @Test("a retry stage in the chain and FollowDescriptor in the pipeline make maxAttempts (3) calls, not 9")
    func retryStageAndFollowDescriptorShareTheCount() async throws {
        let registry = try nwcRegistry()
        let clock = ManualClock()
        let calls = CallCounter()
        let seen = AttemptLog()
        let runner = OperationRunner(
            chain: OperationChain {
                RetryStage(configuration: .init(registry: registry), clock: clock)
                AttemptNoter(seen: seen)
            },
            pipeline: ErrorPipeline(
                layer: .client, escalatesTo: .context, configuration: configuration(registry, clock)
            ) {
                FollowDescriptor()
            })
        let task = Task {
            try await runner.run("pay") { () async throws -> Int in
                calls.next()
                throw nwc("RATE_LIMITED")
            }
        }
        await clock.drive(2)
        let escalated = await #expect(throws: EscalatedError.self) { try await task.value }
        #expect(calls.count == 3)
        #expect(clock.requestedSleeps == [.seconds(60), .seconds(60)])
        #expect(clock.sleeperCount == 0)
        #expect(seen.values == [1, 2, 3])
        #expect(escalated?.event.attempt == 3, "the event carries the attempt the stages saw last")
    }

    @Test("without a retry stage, the pipeline's retries run the chain again with the next attempt number")
    func pipelineRetriesCountOn() async throws {
        let registry = try nwcRegistry()
        let clock = ManualClock()
        let seen = AttemptLog()
        let runner = OperationRunner(
            chain: AttemptNoter(seen: seen),
            pipeline: ErrorPipeline(
                layer: .client, escalatesTo: .context, configuration: configuration(registry, clock)
            ) {
                FollowDescriptor()
            })
        let task = Task {
            try await runner.run("pay") { () async throws -> Int in throw nwc("INTERNAL") }
        }
        await clock.drive(3)
        let escalated = await #expect(throws: EscalatedError.self) { try await task.value }
        #expect(seen.values == [1, 2, 3, 4], "INTERNAL allows 4 attempts in all")
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(2), .seconds(4)])
        #expect(escalated?.event.attempt == 4)
    }

    @Test("a retry stage vetoed by its predicate leaves the rest of the count to the pipeline")
    func vetoedStageLeavesTheRestToThePipeline() async throws {
        let registry = try nwcRegistry()
        let clock = ManualClock()
        let seen = AttemptLog()
        let runner = OperationRunner(
            chain: OperationChain {
                // The stage retries only the first failure of each run of the chain.
                RetryStage(configuration: .init(registry: registry, shouldRetry: { $0.attempt == 1 }), clock: clock)
                AttemptNoter(seen: seen)
            },
            pipeline: ErrorPipeline(
                layer: .client, escalatesTo: .context, configuration: configuration(registry, clock)
            ) {
                FollowDescriptor()
            })
        let task = Task {
            try await runner.run("pay") { () async throws -> Int in throw nwc("INTERNAL") }
        }
        await clock.drive(3)
        let escalated = await #expect(throws: EscalatedError.self) { try await task.value }
        #expect(seen.values == [1, 2, 3, 4], "4 calls in all, as INTERNAL's policy says, not more")
        #expect(escalated?.event.attempt == 4)
    }

    @Test("a recovered operation reports the attempt the chain was on, and stages see the same numbers")
    func recoveredAfterStageRetries() async throws {
        let registry = try nwcRegistry()
        let clock = ManualClock()
        let calls = CallCounter()
        let seen = AttemptLog()
        let runner = OperationRunner(
            chain: OperationChain {
                RetryStage(configuration: .init(registry: registry), clock: clock)
                AttemptNoter(seen: seen)
            },
            pipeline: ErrorPipeline(
                layer: .client, escalatesTo: .context, configuration: configuration(registry, clock)
            ) {
                FollowDescriptor()
            })
        let task = Task {
            try await runner.run("pay") { () async throws -> Int in
                if calls.next() < 3 { throw nwc("INTERNAL") }
                return 7
            }
        }
        await clock.drive(2)
        let outcome = try await task.value
        #expect(outcome.value == 7)
        #expect(seen.values == [1, 2, 3])
    }

    @Test("a reconnection policy is a preset of the retry engine: any retry policy reconnects, capped and jittered")
    func reconnectionFollowsTheEngine() async throws {
        struct Down: Error {}
        let clock = ManualClock()
        let states = StateLog()
        let policy = ReconnectionPolicy(
            policy: RetryPolicy(maxAttempts: 4, backoff: .exponential, delay: .seconds(2), maxDelay: .seconds(5)),
            exhausted: { $0 })
        let task = Task {
            try await policy.run(clock: clock, onState: { states.append($0) }) { _ async throws -> Int in throw Down() }
        }
        await clock.drive(3)
        await #expect(throws: Down.self) { try await task.value }
        #expect(clock.requestedSleeps == [.seconds(2), .seconds(4), .seconds(5)])
        #expect(
            states.values == [
                .connecting(attempt: 1), .waiting(attempt: 1, delay: .seconds(2)), .connecting(attempt: 2),
                .waiting(attempt: 2, delay: .seconds(4)), .connecting(attempt: 3),
                .waiting(attempt: 3, delay: .seconds(5)), .connecting(attempt: 4), .failed(attempts: 4),
            ])
        #expect(RetryPolicy.reconnection(maxAttempts: 3, interval: .seconds(3)).maxAttempts == 3)
        #expect(ReconnectionPolicy.failing(with: ErrorCode("a", "b")).policy == .reconnection())
    }
}
