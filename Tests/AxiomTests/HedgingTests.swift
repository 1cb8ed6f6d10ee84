import Axiom
import AxiomTesting
import Testing

@Suite("Hedging")
struct HedgingTests {
    struct Down: Error {}

    @Test("a slow first attempt gets a hedge after the delay; the first success wins and the other is cancelled")
    func slowPrimaryIsHedged() async throws {
        let clock = ManualClock()
        let stage = try HedgingStage(maxHedges: 1, delay: .seconds(2), clock: clock)
        let seen = AttemptLog()
        let primaryCancelled = Flag(false)
        let task = Task {
            try await stage.run(context: OperationContext(name: "read")) { context in
                seen.append(context.attempt)
                if context.attempt == 1 {
                    do {
                        try await clock.sleep(for: .seconds(10))
                    } catch {
                        primaryCancelled.set(true)
                        throw error
                    }
                    return "primary"
                }
                return "hedge"
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(2))
        #expect(try await task.value == "hedge")
        #expect(seen.values.sorted() == [1, 2])
        #expect(primaryCancelled.isOn, "the losing attempt was cancelled before the stage returned")
    }

    @Test("a fast first attempt starts no hedge")
    func fastPrimaryNoHedge() async throws {
        let clock = ManualClock()
        let stage = try HedgingStage(maxHedges: 2, delay: .seconds(2), clock: clock)
        let calls = CallCounter()
        let value = try await stage.run("read") { () async throws -> Int in
            calls.next()
            return 5
        }
        #expect(value == 5)
        #expect(calls.count == 1)
    }

    @Test("a failure starts the next attempt at once; when all fail, the last failure is thrown")
    func failuresHedgeAtOnce() async throws {
        let clock = ManualClock()
        let stage = try HedgingStage(maxHedges: 2, delay: .seconds(60), clock: clock)
        let seen = AttemptLog()
        await #expect(throws: Down.self) {
            try await stage.run(context: OperationContext(name: "read")) { context -> Int in
                seen.append(context.attempt)
                throw Down()
            }
        }
        #expect(seen.values.sorted() == [1, 2, 3], "1 + maxHedges attempts, none waiting for the 60 s delay")
        #expect(clock.now.offset == .zero)
    }

    @Test("a failure shouldHedge refuses ends the call at once")
    func refusedFailureEndsTheCall() async throws {
        let clock = ManualClock()
        let stage = try HedgingStage(maxHedges: 2, delay: .seconds(1), clock: clock, shouldHedge: { !($0 is Down) })
        let calls = CallCounter()
        await #expect(throws: Down.self) {
            try await stage.run("read") { () async throws -> Int in
                calls.next()
                throw Down()
            }
        }
        #expect(calls.count == 1)
    }

    @Test("a cancelled caller starts no hedge, though its attempt takes a while to stop and every delay passes")
    func cancelledCallerStartsNoHedge() async throws {
        let clock = ManualClock()
        let stage = try HedgingStage(maxHedges: 2, delay: .seconds(10), clock: clock)
        let calls = CallCounter()
        let task = Task {
            try await stage.run("read") { () async throws -> Int in
                let call = calls.next()
                do {
                    try await clock.sleep(for: .seconds(60))
                } catch {
                    // The first attempt takes 100 ms to stop once cancelled (in a task the cancellation does not
                    // reach, as a call that cleans up before it returns); the others stop at once.
                    if call == 1 { try? await Task { try await clock.sleep(for: .milliseconds(100)) }.value }
                    throw error
                }
                return call
            }
        }
        await clock.waitForSleepers(2)  // the first attempt and the timer of the first hedge
        clock.advance(by: .milliseconds(20))
        task.cancel()
        await clock.waitForSleepers(1)  // the first attempt stopping
        // The timer woke with the cancellation; give the stage every chance to act on it before the attempt ends.
        for _ in 0..<100 { await Task.yield() }
        clock.advance(by: .seconds(30))
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(calls.count == 1, "no hedge after the caller was cancelled")
    }

    @Test("options out of range are refused")
    func invalidOptions() {
        #expect(throws: ResilienceConfigurationError.self) { try HedgingStage(maxHedges: 0, delay: .seconds(1)) }
        #expect(throws: ResilienceConfigurationError.self) { try HedgingStage(delay: .seconds(-1)) }
    }
}
