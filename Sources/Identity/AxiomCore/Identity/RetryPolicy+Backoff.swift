import AxiomCatalog

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The one place a wait before a retry is computed. `RetryStage` (in the chain), `Recover` and
// `FollowDescriptor` (in a layer's pipeline) and `ReconnectionPolicy` all ask it, so a policy means the same
// wait wherever it is applied:
//
//   Retry-After honoured and valid ──▶ min(Retry-After, maxDelay)
//   otherwise ──▶ backoff (constant, linear, exponential) ──▶ jitter of the same type ──▶ min(…, maxDelay)

/// What the retry engine remembers between the waits of one operation: decorrelated jitter depends on the
/// previous draw. Start each operation with a fresh value.
@usableFromInline package struct RetryBackoffState: Sendable, Hashable {
    /// The decorrelated-jitter formula's previous value, nil before the first jittered exponential wait.
    var previous: Double?

    /// The state of an operation that has not waited yet.
    @usableFromInline package init() {}
}

extension RetryPolicy {
    /// The wait before retry number `retry` (1 for the first retry, so after attempt `retry`), Retry-After and
    /// jitter included, never longer than ``maxDelay``.
    ///
    /// - A `retryAfter` the error carried wins over the backoff when ``honorsRetryAfter`` is set, but it is
    ///   capped at ``maxDelay`` too (a server asking for an hour with a 10 s `maxDelay` gets 10 s). A negative
    ///   one is not a wait: it is ignored and the backoff applies.
    /// - Without jitter the backoff is ``delay(forRetry:)``.
    /// - With jitter, as Polly v8 does, constant and linear waits move by up to ±25 % around their value, and
    ///   exponential waits follow Polly's decorrelated jitter (`DecorrelatedJitterBackoffV2`), described below.
    ///
    /// Jittered exponential waits grow twofold from one retry to the next as the backoff does, but they are not
    /// spread around `delay × 2^(n-1)`: from the third retry on their median is about half of it. With
    /// `f(t) = 2^t · tanh(√(4t))` and one uniform draw `uₙ` in [0, 1) per retry, the wait before retry `n` is
    ///
    /// ```
    /// wait(n) = delay × (f(n − 1 + uₙ) − f(n − 2 + uₙ₋₁)) / 1.4      (the second term is 0 for n = 1)
    /// ```
    ///
    /// then capped at ``maxDelay``. Before the cap:
    ///
    /// | retry n  | smallest | largest                            | median                    |
    /// |----------|----------|------------------------------------|---------------------------|
    /// | 1        | 0        | 1.38 × delay (f(1) / 1.4)          | 0.90 × delay (f(½) / 1.4) |
    /// | 2        | 0        | 2.84 × delay (f(2) / 1.4)          | about 1.14 × delay        |
    /// | 3 and on | 0        | under 1.09 × delay × 2^(n-1)       | about delay × 2^(n-2)     |
    ///
    /// Within one operation (one `state`) the draws chain, so the waits add up: before the cap, the first `n`
    /// waits come to `delay × f(n − 1 + uₙ) / 1.4`, from the second retry on between 0.68 and 1.43 ×
    /// `delay × 2^(n-1)`. The time waited in all follows the unjittered backoff's last wait, while each wait is
    /// about half of it.
    ///
    /// With `delay` 1 s, five retries, in milliseconds. Jitter rows are the samples of Polly's documentation,
    /// each a wait this engine draws too (the tests replay them); an exponential sample row is a set of single
    /// waits, not one operation's series.
    ///
    /// | backoff     | jitter | maxDelay | waits                                |
    /// |-------------|--------|----------|--------------------------------------|
    /// | constant    | no     | –        | 1000, 1000, 1000, 1000, 1000         |
    /// | constant    | yes    | –        | 986, 912, 842, 972, 1007 (750…1250)  |
    /// | constant    | yes    | 1100 ms  | 1100, 978, 1100, 1041, 916           |
    /// | linear      | no     | –        | 1000, 2000, 3000, 4000, 5000         |
    /// | linear      | yes    | –        | 1129, 2147, 2334, 4894, 4102 (±25 %) |
    /// | linear      | yes    | 4500 ms  | 907, 2199, 2869, 4500, 4500          |
    /// | exponential | no     | –        | 1000, 2000, 4000, 8000, 16000        |
    /// | exponential | no     | 10 s     | 1000, 2000, 4000, 8000, 10000        |
    /// | exponential | yes    | –        | 393, 1453, 4235, 5369, 16849         |
    /// | exponential | yes    | 15 s     | 477, 793, 2227, 5651, 15000          |
    ///
    /// - Parameters:
    ///   - retry: which retry this wait precedes, from 1.
    ///   - retryAfter: the `Retry-After` the failed attempt's error carried, if any.
    ///   - state: the operation's engine state; pass the same variable for every wait of one operation.
    ///   - random: where jitter draws come from.
    package func wait(
        forRetry retry: Int, retryAfter: Duration? = nil, state: inout RetryBackoffState, random: RandomSource
    ) -> Duration {
        if honorsRetryAfter, let retryAfter, retryAfter >= .zero { return min(retryAfter, max(maxDelay, .zero)) }
        guard jitter, delay > .zero else { return delay(forRetry: retry) }
        let n = max(1, retry)
        let base = Self.nanoseconds(delay)
        let cap = Self.nanoseconds(max(maxDelay, .zero))
        let wait: Double
        switch backoff {
        case .constant:
            wait = base * (0.75 + 0.5 * random.nextUnit())
        case .linear:
            wait = base * Double(n) * (0.75 + 0.5 * random.nextUnit())
        case .exponential:
            // Polly's DecorrelatedJitterBackoffV2: the n-th wait is the growth of 2^t·tanh(√(4t)) between two
            // random points t, one per retry, divided by 1.4: medians about delay × 2^(n-2) from the third retry
            // on (the doc comment's table).
            let previous = state.previous ?? (n > 1 ? Self.decorrelated(Double(n - 2) + random.nextUnit()) : 0)
            let next = Self.decorrelated(Double(n - 1) + random.nextUnit())
            state.previous = next
            wait = (next - previous) / 1.4 * base
        }
        guard wait.isFinite, wait < cap, wait < 9e18 else { return max(maxDelay, .zero) }
        return .nanoseconds(Int64(max(0, wait).rounded()))
    }

    /// The wait before retry number `retry` for a caller that keeps no state between waits (a layer's
    /// handlers, which decide each failure of an episode apart).
    ///
    /// Identical to ``wait(forRetry:retryAfter:state:random:)`` except for jittered exponential backoff, where the
    /// previous random point is drawn afresh: each wait has the same distribution as Polly's, but two waits of
    /// one operation are not linked.
    package func wait(forRetry retry: Int, retryAfter: Duration? = nil, random: RandomSource = .shared) -> Duration {
        var state = RetryBackoffState()
        return wait(forRetry: retry, retryAfter: retryAfter, state: &state, random: random)
    }

    /// Where a constant or linear jittered wait falls (±25 % of the backoff, capped at ``maxDelay``); for an
    /// exponential backoff, from zero to the cap, since decorrelated jitter has no fixed band.
    package func jitterRange(forRetry retry: Int) -> ClosedRange<Duration> {
        let cap = max(maxDelay, .zero)
        guard jitter else { return delay(forRetry: retry)...delay(forRetry: retry) }
        let nominal = Self.nanoseconds(delay) * Double(backoff == .linear ? max(1, retry) : 1)
        switch backoff {
        case .constant, .linear:
            let low = min(nominal * 0.75, Self.nanoseconds(cap))
            let high = min(nominal * 1.25, Self.nanoseconds(cap))
            return .nanoseconds(Int64(low.rounded(.down)))...(.nanoseconds(Int64(high.rounded(.up))))
        case .exponential:
            return .zero...cap
        }
    }

    private static func decorrelated(_ t: Double) -> Double { pow(2, t) * tanh((4 * t).squareRoot()) }

    private static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}
