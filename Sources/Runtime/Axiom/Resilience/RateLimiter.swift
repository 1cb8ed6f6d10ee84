import CoreMetrics
import Synchronization

/// Lets calls through at a rate, and refuses the others at once with `RateLimitError`
/// (`axiom.resilience/rateLimited`), which carries when the permits asked for will be there: a `Retry-After`
/// for an HTTP answer, and a wait for a retry policy that honours it.
///
/// Two algorithms, as .NET's rate limiters (which Polly uses):
///
/// - **token bucket**: a bucket of `capacity` tokens, refilled by `tokensPerPeriod` every `period` (continuously,
///   pro rata); a call takes its permits from it. Bursts up to `capacity`, then the refill rate.
/// - **sliding window**: `limit` permits per `window`, counted in `segments` segments; a refused call is told when
///   the oldest segments that hold enough permits leave the window.
///
/// The sliding window holds the limit to within one segment, as .NET's `SlidingWindowRateLimiter` does. A segment
/// begins with the first call admitted once the previous one's width (`window / segments`) has passed, not on a
/// grid of the clock; it holds the permits admitted during its width, and leaves the window, all of them at once,
/// `window` after it began. A call is admitted when the segments still in the window hold at most `limit`
/// permits with its own. So:
///
/// - a span of `window` that begins where a segment begins admits at most `limit` permits;
/// - any other span of `window` admits at most `limit` plus the permits that the segment open at its start
///   admitted within it: at most twice `limit`.
///
/// With `limit` 10, `window` 1 s and 10 segments, 1 call at 0 ms and 9 at 99 ms fill the segment that began at
/// 0 ms; it leaves at 1,000 ms, when 10 more are admitted: 19 calls within 901 ms.
///
/// One lock per call; the clock is read once per call (the rate is a matter of time).
public final class RateLimiter: Sendable {
    /// How the rate is kept.
    public struct Algorithm: Sendable, Hashable {
        /// The cases a 1.x release may add to; a struct, so that adding one breaks no `switch`.
        package enum Kind: Sendable, Hashable {
            case tokenBucket(capacity: Int, tokensPerPeriod: Int, period: Duration)
            case slidingWindow(limit: Int, window: Duration, segments: Int)
        }

        /// Which of them this is.
        package let kind: Kind

        package init(_ kind: Kind) { self.kind = kind }

        /// A bucket of `capacity` tokens, refilled by `tokensPerPeriod` tokens every `period`.
        public static func tokenBucket(capacity: Int, tokensPerPeriod: Int, period: Duration) -> Algorithm {
            Algorithm(.tokenBucket(capacity: capacity, tokensPerPeriod: tokensPerPeriod, period: period))
        }

        /// `limit` permits per `window`, kept in `segments` segments: held to within one segment (see the type's
        /// discussion).
        public static func slidingWindow(limit: Int, window: Duration, segments: Int) -> Algorithm {
            Algorithm(.slidingWindow(limit: limit, window: window, segments: segments))
        }
    }

    private struct Segment {
        var startedAt: Duration
        var permits: Int
    }

    private struct State {
        var tokens: Double
        var refilledAt: Duration
        var segments: [Segment] = []
        var inWindow = 0
    }

    /// What the limiter guards.
    package let key: String
    /// How the rate is kept.
    package let algorithm: Algorithm
    private let clock: RuntimeClock
    private let state: Mutex<State>
    private let rejections: Counter

    /// Creates a limiter.
    ///
    /// - Throws: `ResilienceConfigurationError` when a number is out of range (a capacity or limit below 1, a
    ///   period or window that is not positive, segments below 1).
    public init(
        key: String, algorithm: Algorithm, clock: some Clock<Duration> = ContinuousClock(),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(ResilienceConfigurationError) {
        let component = "rate limiter '\(key)'"
        func refuse(_ option: String, _ reason: String) -> ResilienceConfigurationError {
            ResilienceConfigurationError(component: component, option: option, reason: reason)
        }
        switch algorithm.kind {
        case .tokenBucket(let capacity, let tokensPerPeriod, let period):
            guard capacity >= 1 else { throw refuse("tokenBucket.capacity", "must be at least 1, got \(capacity)") }
            guard tokensPerPeriod >= 1 else {
                throw refuse("tokenBucket.tokensPerPeriod", "must be at least 1, got \(tokensPerPeriod)")
            }
            guard period > .zero else { throw refuse("tokenBucket.period", "must be positive, got \(period)") }
        case .slidingWindow(let limit, let window, let segments):
            guard limit >= 1 else { throw refuse("slidingWindow.limit", "must be at least 1, got \(limit)") }
            guard window > .zero else { throw refuse("slidingWindow.window", "must be positive, got \(window)") }
            guard segments >= 1 else { throw refuse("slidingWindow.segments", "must be at least 1, got \(segments)") }
        }
        self.key = key
        self.algorithm = algorithm
        let runtimeClock = RuntimeClock(clock)
        self.clock = runtimeClock
        let capacity: Int
        if case .tokenBucket(let full, _, _) = algorithm.kind { capacity = full } else { capacity = 0 }
        var initial = State(tokens: Double(capacity), refilledAt: runtimeClock.now())
        if case .slidingWindow(_, _, let segments) = algorithm.kind { initial.segments.reserveCapacity(segments + 1) }
        state = Mutex(initial)
        rejections = Counter(label: "axiom_rate_limiter_rejections_total", dimensions: [("key", key)], factory: metrics)
    }

    /// Takes `permits` (1 by default) now, or refuses.
    ///
    /// - Throws: ``RateLimitError`` with the time until `permits` would be granted; a request for more permits
    ///   than the limiter ever holds says the time until it is full.
    @usableFromInline package func acquire(permits: Int = 1) throws(RateLimitError) {
        let now = clock.now()
        let algorithm = algorithm
        let refusal = state.withTrackedLock { state -> Duration? in
            switch algorithm.kind {
            case .tokenBucket(let capacity, let tokensPerPeriod, let period):
                let perNanosecond = Double(tokensPerPeriod) / Self.nanoseconds(period)
                let elapsed = Self.nanoseconds(now - state.refilledAt)
                state.tokens = min(Double(capacity), state.tokens + elapsed * perNanosecond)
                state.refilledAt = now
                let wanted = Double(min(permits, capacity))
                if state.tokens >= wanted, permits <= capacity {
                    state.tokens -= wanted
                    return nil
                }
                return .nanoseconds(Int64(((wanted - state.tokens) / perNanosecond).rounded(.up)))
            case .slidingWindow(let limit, let window, let segments):
                let width = window / segments
                var dropped = 0
                for segment in state.segments {
                    guard now - segment.startedAt >= window else { break }
                    state.inWindow -= segment.permits
                    dropped += 1
                }
                if dropped > 0 { state.segments.removeFirst(dropped) }
                if state.inWindow + permits <= limit {
                    if let last = state.segments.last, now - last.startedAt < width {
                        state.segments[state.segments.count - 1].permits += permits
                    } else {
                        state.segments.append(Segment(startedAt: now, permits: permits))
                    }
                    state.inWindow += permits
                    return nil
                }
                // The earliest moment enough of the oldest segments have left the window.
                var freed = 0
                for segment in state.segments {
                    freed += segment.permits
                    if state.inWindow - freed + permits <= limit { return segment.startedAt + window - now }
                }
                return state.segments.last.map { $0.startedAt + window - now } ?? window
            }
        }
        guard let refusal else { return }
        rejections.increment()
        throw RateLimitError(key: key, retryAfter: max(refusal, .zero))
    }

    private static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// The rate-limiter stage: outermost in the standard order (limiter → total timeout → retry → breaker →
/// attempt timeout). A refusal is a `RateLimitError` whose `retryAfter` says when to come back.
public struct RateLimiterStage: OperationMiddleware {
    /// The limiter every call passes.
    @usableFromInline package let limiter: RateLimiter
    /// Permits each call takes.
    @usableFromInline package let permits: Int
    /// Where rejections are counted (`axiom_resilience_events_total{event="rejection"}`); nil: nowhere.
    @usableFromInline package let telemetry: ResilienceTelemetry?

    /// A stage guarded by `limiter`, each call taking `permits`.
    public init(_ limiter: RateLimiter, permits: Int = 1, telemetry: ResilienceTelemetry? = nil) {
        self.limiter = limiter
        self.permits = permits
        self.telemetry = telemetry
    }

    @inlinable
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        do {
            try limiter.acquire(permits: permits)
        } catch {
            throw counted(error, stage: "rateLimiter", operation: context.name, telemetry: telemetry)
        }
        return try await next(context)
    }
}
