import Synchronization

/// A small, fast, seedable random generator (SplitMix64), so jitter and fault ratios replay exactly in tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same sequence.
    public init(seed: UInt64) { self.state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random source shared by concurrent calls: jitter for retries, coin flips for fault injection.
public final class RandomSource: Sendable {
    private let generator: Mutex<SplitMix64>

    /// A source that replays the same sequence for the same seed.
    public init(seed: UInt64) { generator = Mutex(SplitMix64(seed: seed)) }

    /// A source seeded from the system's generator.
    public convenience init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: system.next())
    }

    /// A uniform value in `range`.
    public func next(in range: ClosedRange<Int64>) -> Int64 {
        generator.withTrackedLock { Int64.random(in: range, using: &$0) }
    }

    /// A uniform value in `0 ..< 1`.
    public func nextUnit() -> Double {
        generator.withTrackedLock { Double.random(in: 0..<1, using: &$0) }
    }
}

extension RetryPolicy {
    /// The wait before retry number `retry` (1 for the first), given the previous wait.
    ///
    /// Without jitter it is the policy's backoff (constant, linear or exponential) capped at `maxDelay`. With
    /// jitter it is "decorrelated jitter": uniform between the base delay and three times the previous wait,
    /// capped at `maxDelay`, so concurrent clients spread out instead of retrying in lockstep.
    public func wait(forRetry retry: Int, previous: Duration?, random: RandomSource) -> Duration {
        guard jitter else { return delay(forRetry: retry) }
        let bounds = jitterBounds(previous: previous)
        let low = bounds.lowerBound.wholeNanoseconds
        let high = bounds.upperBound.wholeNanoseconds
        return .nanoseconds(random.next(in: low...max(low, high)))
    }

    /// Where a jittered wait falls, given the previous wait (nil before the first retry).
    public func jitterBounds(previous: Duration?) -> ClosedRange<Duration> {
        let low = min(delay, maxDelay)
        let tripled = (previous ?? delay) * 3
        let high = min(maxDelay, max(low, tripled))
        return low...high
    }
}
