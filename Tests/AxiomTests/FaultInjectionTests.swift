import Axiom
import AxiomTesting
import Testing

@Suite("Fault injection")
struct FaultInjectionTests {
    @Test("fails the next N calls with the given error, then lets calls through")
    func failNext() async throws {
        let injector = FaultInjector()
        let stage = FaultInjectionStage(injector, clock: ManualClock())
        injector.failNext(2, with: nwc("INTERNAL"))
        for _ in 0..<2 {
            await #expect(throws: DomainError.self) { try await stage.run("op") { 1 } }
        }
        #expect(try await stage.run("op") { 1 } == 1)
        #expect(injector.injectedFailures == 2)
    }

    @Test("adds latency on the injected clock")
    func latency() async throws {
        let clock = ManualClock()
        let injector = FaultInjector()
        injector.addLatency(.milliseconds(250))
        let stage = FaultInjectionStage(injector, clock: clock)
        let task = Task { try await stage.run("op") { 7 } }
        await clock.drive(1)
        #expect(try await task.value == 7)
        #expect(clock.requestedSleeps == [.milliseconds(250)])
    }

    @Test("fails a ratio of calls, the same ones for the same seed")
    func ratio() async throws {
        func run(seed: UInt64) async -> [Bool] {
            let injector = FaultInjector(seed: seed)
            injector.failRatio(0.3)
            let stage = FaultInjectionStage(injector, clock: ManualClock())
            var failed: [Bool] = []
            for _ in 0..<1000 {
                do {
                    _ = try await stage.run("op") { 1 }
                    failed.append(false)
                } catch {
                    failed.append(true)
                }
            }
            return failed
        }
        let first = await run(seed: 7)
        let share = Double(first.filter { $0 }.count) / 1000
        #expect(share > 0.25 && share < 0.35)
        #expect(await run(seed: 7) == first)
    }

    @Test("behind a retry stage, injected faults the registry calls retryable are retried away")
    func retriedAway() async throws {
        let clock = ManualClock()
        let injector = FaultInjector()
        injector.failNext(2, with: nwc("INTERNAL"))
        let chain = OperationChain {
            RetryStage(configuration: .init(registry: try! nwcRegistry()), clock: clock)
            FaultInjectionStage(injector, clock: clock)
        }
        let task = Task { try await chain.run("op") { "ok" } }
        await clock.drive(2)
        #expect(try await task.value == "ok")
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(2)])
    }
}

@Suite("Fault injection of registry codes")
struct RegistryFaultInjectionTests {
    @Test("injects nwc/RATE_LIMITED with its Retry-After at a seeded rate; the retry engine waits that Retry-After")
    func injectsRegisteredCode() async throws {
        let registry = try nwcRegistry()
        let rateLimited = ErrorCode("nwc", "RATE_LIMITED")
        func failures(seed: UInt64) async throws -> [Bool] {
            let injector = FaultInjector(seed: seed)
            try injector.failRatio(0.25, code: rateLimited, retryAfter: .seconds(5), registry: registry)
            let stage = FaultInjectionStage(injector, clock: ManualClock())
            var failed: [Bool] = []
            for _ in 0..<400 {
                do {
                    _ = try await stage.run("pay") { 1 }
                    failed.append(false)
                } catch {
                    let identity = registry.identity(of: error)
                    #expect(identity == ErrorIdentity(code: rateLimited, retryAfter: .seconds(5)))
                    #expect(registry.descriptor(for: identity.code)?.retry?.maxAttempts == 3)
                    failed.append(true)
                }
            }
            return failed
        }
        let first = try await failures(seed: 11)
        #expect(try await failures(seed: 11) == first, "the same seed injects into the same calls")
        let share = Double(first.filter { $0 }.count) / Double(first.count)
        #expect(share > 0.18 && share < 0.32, "about a quarter: \(share)")

        // Through a retry stage: the injected Retry-After (5 s) wins over the descriptor's 60 s.
        let clock = ManualClock()
        let injector = FaultInjector(seed: 1)
        try injector.failRatio(1, code: rateLimited, retryAfter: .seconds(5), registry: registry)
        let chain = OperationChain {
            RetryStage(configuration: .init(registry: registry), clock: clock)
            FaultInjectionStage(injector, clock: clock)
        }
        let task = Task { try await chain.run("pay") { 1 } }
        await clock.drive(2)
        await #expect(throws: DomainError.self) { try await task.value }
        #expect(clock.requestedSleeps == [.seconds(5), .seconds(5)])
        #expect(injector.injectedFailures == 3)
    }

    @Test("a code the registry does not know is refused")
    func unknownCodeRefused() {
        let injector = FaultInjector()
        #expect(throws: ResilienceConfigurationError.self) {
            try injector.failRatio(0.5, code: ErrorCode("nwc", "NO_SUCH_CODE"), registry: ErrorRegistry())
        }
    }
}
