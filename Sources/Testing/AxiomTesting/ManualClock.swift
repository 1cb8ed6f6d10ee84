import Synchronization

/// A clock that moves only when a test tells it to. Code under test sleeps on it; the test advances it.
///
/// ```swift
/// let clock = ManualClock()
/// async let outcome = pipeline.run("op") { … }   // sleeps 60 s on `clock` before retrying
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(60))
/// ```
///
/// `requestedSleeps` keeps every duration slept for, so tests can check backoff schedules exactly.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual time line: the time since the clock's start.
    public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
        /// Time since the clock's start.
        package var offset: Duration

        /// Creates an instant at `offset` from the start.
        package init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var requested: [Duration] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withTrackedLock { $0.now } }

    /// Manual time has no resolution limit.
    public var minimumResolution: Duration { .zero }

    /// Every duration slept for, in the order the sleeps began (a sleep that ends at once included).
    public var requestedSleeps: [Duration] { state.withTrackedLock { $0.requested } }

    /// How many tasks are sleeping now.
    package var sleeperCount: Int { state.withTrackedLock { $0.sleepers.count } }

    /// Suspends until `deadline`, which only `advance` can bring. Throws `CancellationError` when cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id: UInt64? = state.withTrackedLock { state in
            state.requested.append(state.now.duration(to: deadline))
            guard deadline > state.now else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else {
            try Task.checkCancellation()
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withTrackedLock { state in
                    if Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = state.sleepers.count
                    let ready = state.waiters.filter { $0.count <= count }
                    state.waiters.removeAll { $0.count <= count }
                    for waiter in ready { waiter.continuation.resume() }
                    return false
                }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withTrackedLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withTrackedLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves time forward to the earliest sleeper's deadline and wakes it. Returns false if nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        let next: Instant? = state.withTrackedLock { state in state.sleepers.map(\.deadline).min() }
        guard let next else { return false }
        advance(by: now.duration(to: next))
        return true
    }

    /// Suspends until at least `count` tasks are sleeping on this clock. No polling, no real sleeps.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withTrackedLock { state in
                if state.sleepers.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
