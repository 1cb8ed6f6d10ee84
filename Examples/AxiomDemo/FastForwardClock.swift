import Synchronization

/// A clock whose sleeps end at once while its time moves forward by the slept amount, so the demo can show
/// a 60-second rate-limit wait without waiting. The pipeline and middleware only ever see a `Clock`.
final class FastForwardClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    fileprivate let current = Mutex(Instant(offset: .zero))

    var now: Instant { current.withTrackedLock { $0 } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withTrackedLock { now in now = max(now, deadline) }
    }

    /// Simulated time since the start, for the transcript.
    var elapsed: Duration { now.offset }
}

extension FastForwardClock {
    /// Lets simulated time pass without anyone sleeping (the user waiting before trying again).
    func advance(by duration: Duration) {
        current.withTrackedLock { now in now = now.advanced(by: duration) }
    }
}
