import Axiom
import AxiomTesting
import Synchronization
import Testing

/// A stage that writes its name on the way in and out.
struct Tracing: OperationMiddleware {
    let name: String
    let log: TraceLog

    nonisolated(nonsending) func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        log.append("→\(name)")
        defer { log.append("←\(name)") }
        return try await next(context)
    }
}

final class TraceLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ entry: String) { storage.withLock { $0.append(entry) } }
    var entries: [String] { storage.withLock { $0 } }
}

@Suite("Operation middleware chain")
struct MiddlewareChainTests {
    @Test("stages run outermost first, each calling the next, and unwind in reverse")
    func order() async throws {
        let log = TraceLog()
        let includeAudit = true
        let chain = OperationChain {
            Tracing(name: "capability", log: log)
            Tracing(name: "breaker", log: log)
            if includeAudit {
                Tracing(name: "audit", log: log)
            }
            Tracing(name: "retry", log: log)
        }
        let value = try await chain.run("op") { () async throws -> Int in
            log.append("work")
            return 3
        }
        #expect(value == 3)
        #expect(
            log.entries == [
                "→capability", "→breaker", "→audit", "→retry", "work", "←retry", "←audit", "←breaker", "←capability",
            ])
    }

    @Test("stages from a for loop nest in order between the stages around them")
    func stagesFromALoop() async throws {
        let log = TraceLog()
        let names = ["a", "b", "c"]
        let chain = OperationChain {
            Tracing(name: "outer", log: log)
            for name in names {
                Tracing(name: name, log: log)
            }
            Tracing(name: "inner", log: log)
        }
        let value = try await chain.run("op") { () async throws -> Int in
            log.append("work")
            return 4
        }
        #expect(value == 4)
        #expect(
            log.entries == [
                "→outer", "→a", "→b", "→c", "→inner", "work", "←inner", "←c", "←b", "←a", "←outer",
            ])
        let empty: [Tracing] = []
        let bare = OperationChain {
            for stage in empty { stage }
        }
        #expect(try await bare.run("op") { 5 } == 5)
    }

    @Test("stages chosen at run time, of different types, nest in order behind AnyOperationMiddleware")
    func erasedStages() async throws {
        let log = TraceLog()
        let stages = [
            AnyOperationMiddleware(Tracing(name: "a", log: log)), AnyOperationMiddleware(TimeoutStage(.seconds(600))),
            AnyOperationMiddleware(Tracing(name: "b", log: log)),
        ]
        let chain = OperationChain {
            for stage in stages {
                stage
            }
        }
        let value = try await chain.run("op") { () async throws -> Int in
            log.append("work")
            return 1
        }
        #expect(value == 1)
        #expect(log.entries == ["→a", "→b", "work", "←b", "←a"])
    }

    @Test("the retry stage tells inner stages which attempt they see")
    func attemptNumbers() async throws {
        let clock = ManualClock()
        let attempts = Mutex<[Int]>([])
        struct Recorder: OperationMiddleware {
            let attempts: @Sendable (Int) -> Void
            nonisolated(nonsending) func run<Output: Sendable>(
                context: OperationContext,
                next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
            ) async throws -> Output {
                attempts(context.attempt)
                return try await next(context)
            }
        }
        let injector = FaultInjector()
        injector.failNext(2, with: nwc("INTERNAL"))
        let chain = OperationChain {
            RetryStage(configuration: .init(registry: try! nwcRegistry()), clock: clock)
            Recorder { attempt in attempts.withLock { $0.append(attempt) } }
            FaultInjectionStage(injector, clock: clock)
        }
        let task = Task { try await chain.run("op") { 1 } }
        await clock.drive(2)
        _ = try await task.value
        #expect(attempts.withLock { $0 } == [1, 2, 3])
    }

    @Test(
        "the full chain in order: capability → breaker → timeout → retry → work; errors leaving it reach the handlers")
    func fullChainWithHandlers() async throws {
        let clock = ManualClock()
        let registry = try nwcRegistry()
        let validator = CapabilityValidator(clock: clock)
        validator.register(CustomCapability("network") {})
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
        let chain = OperationChain {
            CapabilityStage(validator, requiring: ["network"])
            CircuitBreakerStage(breaker)
            TimeoutStage(.seconds(300), clock: clock)
            RetryStage(configuration: .init(registry: registry), clock: clock)
        }
        let observer = RecordingObserver()
        let runner = OperationRunner(
            chain: chain,
            pipeline: ErrorPipeline(
                layer: .client, escalatesTo: nil,
                configuration: PipelineConfiguration(registry: registry, observers: [observer], clock: clock)
            ) { FollowDescriptor() })

        let calls = CallCounter()
        let task = Task {
            try await runner.run("pay") { () async throws -> String in
                if calls.next() == 1 { throw nwc("RATE_LIMITED") }
                return "paid"
            }
        }
        // The capability cache's expiry timer, the timeout and the retry's wait.
        await clock.waitForSleepers(3)
        clock.advance(by: .seconds(60))
        #expect(try await task.value.value == "paid")
        #expect(observer.records.isEmpty, "the retry stage recovered inside the chain")

        let outcome = try await runner.run("pay") { () async throws -> String in throw nwc("INSUFFICIENT_BALANCE") }
        #expect(outcome.disposition == .handle)
        #expect(outcome.event?.code == ErrorCode("nwc", "INSUFFICIENT_BALANCE"))
        #expect(observer.dispositions == [.handle])
        #expect(breaker.state == .closed)
    }

    @Test("an open breaker stops the call before timeout, retry and work")
    func openBreakerShortCircuits() async throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(key: "wallet", clock: clock)
        breaker.isolate()
        let ran = CallCounter()
        let chain = OperationChain {
            CircuitBreakerStage(breaker)
            RetryStage(
                configuration: .init(registry: try! nwcRegistry(), defaultPolicy: RetryPolicy(maxAttempts: 5)),
                clock: clock)
        }
        await #expect(throws: CircuitOpenError.self) { try await chain.run("pay") { ran.next() } }
        #expect(ran.count == 0)
        #expect(clock.requestedSleeps.isEmpty)
    }
}
