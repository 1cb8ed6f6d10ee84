import Synchronization

// How a retry budget keeps a fleet's retries in proportion to its calls (Finagle's RetryBudget):
//
//   a call ──deposit `ratio`──▶ ┌ slot ┬ slot ┬ … ┬ slot ┐ ◀──withdraw 1── a retry or a hedge
//                               └──── `window`, in 10 slots ───┘
//   balance = the reserve (`minRetriesPerSecond` × `window`) + the sum of the live slots
//
// Deposits and withdrawals both expire with their slot, so a spent reserve comes back a window later and a
// burst of calls lends retries for one window only. Amounts are kept in thousandths of a retry, in integers, so
// any interleaving of the same deposits and withdrawals leaves the same balance.

/// A limit on retries and hedges in proportion to calls, shared by every stage and handler given it, so that
/// a failing dependency sees at most a fraction more load, not `maxAttempts` times the load: the guard against
/// retry storms across a fleet (gRPC's retry throttling, Finagle's `RetryBudget`, Envoy's retry budget).
///
/// Each call deposits `ratio` of a retry; each retry or hedge takes a whole one, and is not made when the
/// balance is below one. Deposits and withdrawals count for `window`; on top of them a reserve of
/// `minRetriesPerSecond` × `window` lets a service that makes few calls still retry now and then. With the
/// defaults (20 % over 10 s, at least 10 retries a second) a service making 1,000 calls a second retries at
/// most about 200 of them a second, however many attempts its policies allow.
///
/// Make one per dependency and give it to each `RetryStage`, `HedgingStage` and `Recover` strategy that calls
/// that dependency: they draw from one pool. `RetryStage` and `HedgingStage` deposit once per call they
/// start (attempt number 1); in one chain with both given the budget, a call deposits twice. A refused retry
/// lets the error pass on as it is, with its identity; a refused hedge is not started. Time is read on the
/// injected clock.
public final class RetryBudget: Sendable {
    /// The retries a call earns: 0.2 allows one retry for every five calls.
    package let ratio: Double
    /// The retries allowed each second whatever the calls, as a reserve of `minRetriesPerSecond × window`.
    package let minRetriesPerSecond: Int
    /// How long a deposit or a withdrawal counts.
    package let window: Duration
    /// The clock the window slides on.
    package let clock: RuntimeClock

    /// Thousandths of a retry: one retry costs `scale`.
    static let scale: Int64 = 1000
    static let slotCount = 10

    struct State {
        /// Net amount per slot, thousandths of a retry.
        var slots: [Int64]
        /// The slot `now` falls in.
        var current = 0
        /// Start of the current slot, in nanoseconds of the clock.
        var currentStart: Int64 = 0
        /// Retries refused since the budget was made.
        var refused = 0
    }

    private let deposit: Int64
    private let reserve: Int64
    private let slotLength: Int64
    private let state: Mutex<State>

    /// Creates a budget.
    ///
    /// - Parameters:
    ///   - ratio: the retries a call earns (Finagle's `percentCanRetry`), from 0 to 1000.
    ///   - minRetriesPerSecond: the retries allowed each second however few the calls.
    ///   - window: how long deposits and withdrawals count.
    ///   - clock: the clock the window slides on (a test's injected clock, say).
    /// - Throws: ``ResilienceConfigurationError`` when `ratio` is negative, above 1000 or not a number,
    ///   `minRetriesPerSecond` is negative, `window` is under 10 ms, or both `ratio` and `minRetriesPerSecond`
    ///   are 0 (a budget that never allows a retry: leave retries out instead).
    public convenience init(
        ratio: Double = 0.2, minRetriesPerSecond: Int = 10, window: Duration = .seconds(10),
        clock: some Clock<Duration> = ContinuousClock()
    ) throws(ResilienceConfigurationError) {
        try self.init(
            ratio: ratio, minRetriesPerSecond: minRetriesPerSecond, window: window, runtimeClock: RuntimeClock(clock))
    }

    /// Creates a budget on an already wrapped clock.
    package init(
        ratio: Double = 0.2, minRetriesPerSecond: Int = 10, window: Duration = .seconds(10),
        runtimeClock: RuntimeClock
    ) throws(ResilienceConfigurationError) {
        func refuse(_ option: String, _ reason: String) -> ResilienceConfigurationError {
            ResilienceConfigurationError(component: "retry budget", option: option, reason: reason)
        }
        guard ratio.isFinite, ratio >= 0, ratio <= 1000 else {
            throw refuse("ratio", "must be in [0, 1000], got \(ratio)")
        }
        guard minRetriesPerSecond >= 0 else {
            throw refuse("minRetriesPerSecond", "must not be negative, got \(minRetriesPerSecond)")
        }
        guard window >= .milliseconds(10), window <= .seconds(86_400) else {
            throw refuse("window", "must be from 10 ms to a day, got \(window)")
        }
        guard ratio > 0 || minRetriesPerSecond > 0 else {
            throw refuse("ratio", "and minRetriesPerSecond are both 0: no retry would ever be allowed")
        }
        self.ratio = ratio
        self.minRetriesPerSecond = minRetriesPerSecond
        self.window = window
        self.clock = runtimeClock
        let windowNanoseconds = window.wholeNanoseconds
        self.deposit = Int64((ratio * Double(Self.scale)).rounded())
        // Retries per second × seconds in the window, in thousandths; saturating for absurd values.
        let perSecond = Int64(min(minRetriesPerSecond, Int(Int32.max))) * Self.scale
        let (reserve, overflow) = perSecond.multipliedReportingOverflow(by: windowNanoseconds / 1_000_000)
        self.reserve = overflow ? Int64.max / 4 : reserve / 1000
        self.slotLength = max(1, windowNanoseconds / Int64(Self.slotCount))
        self.state = Mutex(
            State(slots: Array(repeating: 0, count: Self.slotCount), currentStart: runtimeClock.now().wholeNanoseconds))
    }

    /// Notes a call: it earns ``ratio`` of a retry for the next ``window``.
    @usableFromInline package func recordCall() {
        guard deposit > 0 else { return }
        let now = clock.now().wholeNanoseconds
        state.withTrackedLock { state in
            advance(&state, to: now)
            state.slots[state.current] += deposit
        }
    }

    /// Takes one retry (or hedge) from the budget; false, and nothing taken, when less than one is left.
    @usableFromInline package func tryRetry() -> Bool {
        let now = clock.now().wholeNanoseconds
        return state.withTrackedLock { state in
            advance(&state, to: now)
            guard balance(state) >= Self.scale else {
                state.refused += 1
                return false
            }
            state.slots[state.current] -= Self.scale
            return true
        }
    }

    /// How many whole retries the budget would allow now.
    package var available: Int {
        let now = clock.now().wholeNanoseconds
        return state.withTrackedLock { state in
            advance(&state, to: now)
            return Int(max(0, balance(state) / Self.scale))
        }
    }

    /// How many retries and hedges the budget has refused since it was made.
    package var refusals: Int { state.withTrackedLock { $0.refused } }

    private func balance(_ state: State) -> Int64 {
        var sum = reserve
        for amount in state.slots { sum += amount }
        return sum
    }

    /// Moves the current slot to the one `now` falls in, emptying the slots that expired on the way. A reading
    /// older than the current slot (another thread read the clock first) counts in the current slot.
    private func advance(_ state: inout State, to now: Int64) {
        guard now >= state.currentStart + slotLength else { return }
        let elapsed = (now - state.currentStart) / slotLength
        let steps = Int(min(elapsed, Int64(Self.slotCount)))
        for _ in 0..<steps {
            state.current = (state.current + 1) % Self.slotCount
            state.slots[state.current] = 0
        }
        state.currentStart += elapsed * slotLength
    }
}
