import Synchronization

/// A small, fast, seedable random generator (SplitMix64), so jitter and fault ratios replay exactly in tests.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same sequence.
    package init(seed: UInt64) { self.state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random source shared by concurrent calls: jitter for retries, coin flips for fault injection.
public final class RandomSource: Sendable {
    private enum Generator {
        case seeded(SplitMix64)
        case replaying([Double], next: Int)
    }

    private let generator: Mutex<Generator>

    /// A source that replays the same sequence for the same seed.
    public init(seed: UInt64) { generator = Mutex(.seeded(SplitMix64(seed: seed))) }

    /// A source whose ``nextUnit()`` returns `units` in order (each clamped to `0 ..< 1`), then starts over: for
    /// tests that need exact draws, such as reproducing another library's documented jitter.
    package init(replaying units: [Double]) {
        let clamped = units.map { min(max($0, 0), 1.0.nextDown) }
        generator = Mutex(.replaying(clamped.isEmpty ? [0] : clamped, next: 0))
    }

    /// A source seeded from the system's generator.
    @usableFromInline package convenience init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: system.next())
    }

    /// A source seeded from the system's generator, shared by the callers that are given none (the pipeline's
    /// retry handlers).
    @usableFromInline package static let shared = RandomSource()

    /// A uniform value in `range`.
    package func next(in range: ClosedRange<Int64>) -> Int64 {
        generator.withTrackedLock { generator in
            switch generator {
            case .seeded(var random):
                let value = Int64.random(in: range, using: &random)
                generator = .seeded(random)
                return value
            case .replaying(let units, let next):
                generator = .replaying(units, next: (next + 1) % units.count)
                let span = Double(range.upperBound) - Double(range.lowerBound)
                return range.lowerBound + Int64(min(span, (span * units[next]).rounded(.down)))
            }
        }
    }

    /// A uniform value in `0 ..< 1`.
    package func nextUnit() -> Double {
        generator.withTrackedLock { generator in
            switch generator {
            case .seeded(var random):
                let value = Double.random(in: 0..<1, using: &random)
                generator = .seeded(random)
                return value
            case .replaying(let units, let next):
                generator = .replaying(units, next: (next + 1) % units.count)
                return units[next]
            }
        }
    }
}
