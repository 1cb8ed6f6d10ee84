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
