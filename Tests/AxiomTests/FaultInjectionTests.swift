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
            RetryStage(registry: try! nwcRegistry(), clock: clock)
            FaultInjectionStage(injector, clock: clock)
        }
        let task = Task { try await chain.run("op") { "ok" } }
        await clock.drive(2)
        #expect(try await task.value == "ok")
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(2)])
    }
}
