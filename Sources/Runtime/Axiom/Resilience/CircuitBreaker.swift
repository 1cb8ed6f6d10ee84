import CoreMetrics
import Logging
import Synchronization

/// Stops calling a failing dependency for a while, then lets a few probes test it.
///
/// Two modes: consecutive failures (by default 5 failures, then open for 60 s) and failure ratio over a
/// rolling window, which opens only once the window has seen a minimum number of calls. Either can also open on
/// slow calls (`configuration.slowCalls`): calls that took longer than a duration, at a rate over the window
/// (in consecutive mode a slow call counts as a failure). As resilience4j does, the ratio mode checks both rates,
/// failures and slow calls, after every call it records, whatever that call's outcome: six slow calls then four
/// fast ones open a breaker whose slow-call rate is one half at the tenth call. While open, calls are refused with
/// `CircuitOpenError` carrying the time really left. Half-open admits `configuration.halfOpenCalls` probes
/// (one by default); every other call is refused until they end: once that many succeed the breaker closes, the
/// first that fails (or is slow) re-opens it. A break can grow from one opening to the next
/// (`configuration.breakDuration`).
///
/// The options are checked when the breaker is made: one that cannot work (a ratio outside (0, 1], a minimum
/// throughput below 1, …) throws `ResilienceConfigurationError`.
///
/// Transitions are published on ``transitions()``, logged, and counted through swift-metrics
/// (`axiom_circuit_breaker_state{key}` gauge, `axiom_circuit_breaker_transitions_total{key,to}`,
/// `axiom_circuit_breaker_rejections_total{key}`). The closed path takes one uncontended lock per call (none
/// in consecutive mode while nothing fails).
///
/// The breaker's states:
///
/// ```
///            failures reach the threshold                 break elapsed,
///   closed ───────────────────────────────▶ open ───────────────────────────────▶ half-open (N probes)
///     ▲                                      ▲                                        │
///     │            N probes succeed          │            a probe fails               │
///     └──────────────────────────────────────┼────────────────────────────────────────┘
///                                            └──────── (back to open, next break)
///   isolate() forces `isolated` from any state; close() forces `closed`.
/// ```
///
/// A break is measured from the moment the breaker opened, or, after a failed probe, from the moment probing
/// began: a call refused while probes run is told the time left of the break that would follow a failed probe
/// (45 s into probing with 60 s breaks, it is told 15 s).
public final class CircuitBreaker: Sendable {
    /// When a breaker opens.
    public struct Mode: Sendable, Hashable {
        /// The cases a 1.x release may add to; a struct, so that adding one breaks no `switch`.
        package enum Kind: Sendable, Hashable {
            case consecutiveFailures(threshold: Int)
            case failureRatio(threshold: Double, window: Duration, minimumThroughput: Int)
        }

        /// Which of them this is.
        package let kind: Kind

        package init(_ kind: Kind) { self.kind = kind }

        /// After `threshold` (at least 1) failures in a row.
        public static func consecutiveFailures(threshold: Int) -> Mode {
            Mode(.consecutiveFailures(threshold: threshold))
        }

        /// When at least `minimumThroughput` (at least 1) calls ended within the last `window` and at least
        /// `threshold` (more than 0, at most 1) of them failed. The rates are checked after every call, a success
        /// too.
        ///
        /// The window is ten buckets that start with the calls, not with the clock: every outcome of the last
        /// `window` counts (a failure 9.1 s old in a 10 s window does), and none older than `window` plus one
        /// bucket (a tenth of it).
        public static func failureRatio(threshold: Double, window: Duration, minimumThroughput: Int) -> Mode {
            Mode(.failureRatio(threshold: threshold, window: window, minimumThroughput: minimumThroughput))
        }
    }

    /// Calls slow enough to count against the dependency, as resilience4j's slow-call rate.
    public struct SlowCalls: Sendable, Hashable {
        /// A call that takes longer than this is slow; one of exactly this duration is not (as resilience4j's
        /// `slowCallDurationThreshold`).
        package var threshold: Duration
        /// In failure-ratio mode, the share of slow calls in the window (more than 0, at most 1) that opens the
        /// breaker, with the mode's minimum throughput; it is checked after every call, a fast one too. In
        /// consecutive mode a slow call counts as a failure.
        package var rate: Double

        /// Creates the rule: calls longer than `threshold` are slow; `rate` of them in the window opens.
        public init(threshold: Duration, rate: Double = 1) {
            self.threshold = threshold
            self.rate = rate
        }
    }

    /// How a breaker behaves.
    public struct Configuration: Sendable {
        /// When it opens.
        package var mode: Mode
        /// How long it stays open before probes may go (the first break, when ``breakDuration`` is set).
        package var openDuration: Duration
        /// How long the n-th break lasts, counting the breaks since the breaker was last closed (1 for the
        /// first). Nil: every break lasts ``openDuration``. Polly's break-duration generator; for breaks that
        /// double up to 10 minutes: `{ n in min(.seconds(30) * (1 << min(n - 1, 20)), .seconds(600)) }`.
        package var breakDuration: (@Sendable (_ opening: Int) -> Duration)?
        /// How many probes half-open lets through (at least 1); the breaker closes once they all succeed.
        package var halfOpenCalls: Int
        /// Slow calls that count against the dependency; nil: the time a call takes does not matter.
        package var slowCalls: SlowCalls?
        /// Which errors count as failures of the dependency. Others (cancellation by default) count as neither
        /// success nor failure: a probe that ends with one frees its probe slot.
        package var isFailure: @Sendable (any Error) -> Bool

        /// Creates a configuration. The breaker checks it when it is made.
        public init(
            mode: Mode = .consecutiveFailures(threshold: 5), openDuration: Duration = .seconds(60),
            breakDuration: (@Sendable (_ opening: Int) -> Duration)? = nil, halfOpenCalls: Int = 1,
            slowCalls: SlowCalls? = nil,
            isFailure: @escaping @Sendable (any Error) -> Bool = { !($0 is CancellationError) }
        ) {
            self.mode = mode
            self.openDuration = openDuration
            self.breakDuration = breakDuration
            self.halfOpenCalls = halfOpenCalls
            self.slowCalls = slowCalls
            self.isFailure = isFailure
        }

        /// 5 consecutive failures, then open for 60 s.
        public static var standard: Configuration { Configuration() }

        /// Throws when an option cannot work, naming it and why.
        package func validate(key: String) throws(ResilienceConfigurationError) {
            let component = "circuit breaker '\(key)'"
            func refuse(_ option: String, _ reason: String) -> ResilienceConfigurationError {
                ResilienceConfigurationError(component: component, option: option, reason: reason)
            }
            switch mode.kind {
            case .consecutiveFailures(let threshold):
                guard threshold >= 1 else {
                    throw refuse("consecutiveFailures.threshold", "must be at least 1, got \(threshold)")
                }
            case .failureRatio(let threshold, let window, let minimumThroughput):
                guard threshold > 0, threshold <= 1 else {
                    throw refuse("failureRatio.threshold", "must be in (0, 1], got \(threshold)")
                }
                guard window > .zero else { throw refuse("failureRatio.window", "must be positive, got \(window)") }
                guard minimumThroughput >= 1 else {
                    throw refuse(
                        "failureRatio.minimumThroughput", "must be at least 1, got \(minimumThroughput)")
                }
            }
            guard openDuration > .zero else { throw refuse("openDuration", "must be positive, got \(openDuration)") }
            guard halfOpenCalls >= 1 else { throw refuse("halfOpenCalls", "must be at least 1, got \(halfOpenCalls)") }
            if let slowCalls {
                guard slowCalls.threshold > .zero else {
                    throw refuse("slowCalls.threshold", "must be positive, got \(slowCalls.threshold)")
                }
                guard slowCalls.rate > 0, slowCalls.rate <= 1 else {
                    throw refuse("slowCalls.rate", "must be in (0, 1], got \(slowCalls.rate)")
                }
            }
        }

        /// The length of the n-th break since the breaker was last closed, never negative.
        func breakLength(_ opening: Int) -> Duration {
            guard let breakDuration else { return openDuration }
            return max(.zero, breakDuration(max(1, opening)))
        }
    }

    /// A change of state.
    public struct Transition: Sendable, Hashable {
        /// The breaker's key.
        public let key: String
        /// The state it left.
        public let from: CircuitState
        /// The state it entered.
        public let to: CircuitState
        /// When, on the breaker's clock.
        public let at: Duration
    }

    /// What ``acquire()`` grants: a normal call, or one of the half-open probes.
    @usableFromInline package struct Permit: Sendable, Hashable {
        /// Whether this is a half-open probe.
        @usableFromInline package let isProbe: Bool
        /// Which half-open period granted the probe: a probe that ends after its period (the breaker re-opened
        /// meanwhile) must not count in the next one.
        let period: UInt64

        /// A call in the closed state.
        @usableFromInline package static let normal = Permit(isProbe: false, period: 0)
    }

    /// The dependency this breaker protects.
    package let key: String
    /// How it behaves.
    package let configuration: Configuration

    private let clock: RuntimeClock
    private let machine: Mutex<Machine>
    // Mirrors of the machine, written under its lock, read without it: the closed path of the consecutive mode
    // is then two atomic loads. A reader racing a writer sees the call as ordered just before the change.
    private let isClosed = Atomic<Bool>(true)
    private let hasFailures = Atomic<Bool>(false)
    private let broadcaster = Broadcaster<Transition>()
    private let metrics: Metrics
    private let logger: Logger

    /// Whether calls must be timed (slow calls are configured): the stage reads the clock only then.
    @usableFromInline package var measuresDuration: Bool { configuration.slowCalls != nil }

    /// Creates a breaker for `key`.
    ///
    /// - Throws: `ResilienceConfigurationError` when an option cannot work.
    public convenience init(
        key: String, configuration: Configuration = .standard, clock: some Clock<Duration> = ContinuousClock(),
        metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger = .axiom("axiom.resilience")
    ) throws(ResilienceConfigurationError) {
        try self.init(
            key: key, configuration: configuration, runtimeClock: RuntimeClock(clock), metrics: metrics, logger: logger)
    }

    /// Creates a breaker for `key` on an already wrapped clock.
    ///
    /// - Throws: ``ResilienceConfigurationError`` when an option cannot work.
    package init(
        key: String, configuration: Configuration = .standard, runtimeClock: RuntimeClock,
        metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger = .axiom("axiom.resilience")
    ) throws(ResilienceConfigurationError) {
        try configuration.validate(key: key)
        self.key = key
        self.configuration = configuration
        self.clock = runtimeClock
        self.machine = Mutex(Machine(configuration: configuration))
        self.metrics = Metrics(key: key, factory: metrics)
        self.logger = logger.redacting()
        self.metrics.state.record(CircuitState.closed.gaugeValue)
    }

    /// The current state. An open breaker whose time is up still reads `open` until a call probes it.
    public var state: CircuitState { machine.withTrackedLock { $0.state } }

    /// Every transition from now on.
    public func transitions() -> AsyncStream<Transition> { broadcaster.subscribe() }

    // MARK: Calls

    /// Asks to make a call. Pair every granted permit with exactly one `record…` call.
    ///
    /// - Throws: ``CircuitOpenError`` when the breaker refuses, with the time really left until a call may go
    ///   (see the type's discussion for half-open).
    @usableFromInline package func acquire() throws(CircuitOpenError) -> Permit {
        if isClosed.load(ordering: .acquiring) { return .normal }
        let now = clock.now()
        let halfOpenCalls = configuration.halfOpenCalls
        var transition: Transition?
        let result: Result<Permit, CircuitOpenError> = machine.withTrackedLock { machine in
            switch machine.state {
            case .closed:
                return .success(.normal)
            case .isolated:
                return .failure(CircuitOpenError(key: key, state: .isolated, retryAfter: nil))
            case .open:
                let reopensAt = machine.openedAt + machine.breakLength
                guard now >= reopensAt else {
                    return .failure(CircuitOpenError(key: key, state: .open, retryAfter: reopensAt - now))
                }
                transition = machine.move(to: .halfOpen, key: key, at: now)
                machine.startProbing(at: now)
                mirror(machine)
                machine.probesGranted = 1
                return .success(Permit(isProbe: true, period: machine.period))
            case .halfOpen:
                if machine.probesGranted < halfOpenCalls {
                    machine.probesGranted += 1
                    return .success(Permit(isProbe: true, period: machine.period))
                }
                // If a probe fails, the next break is measured from when probing began.
                let reopensAt = machine.halfOpenedAt + configuration.breakLength(machine.openings + 1)
                return .failure(
                    CircuitOpenError(key: key, state: .halfOpen, retryAfter: max(.zero, reopensAt - now)))
            }
        }
        report(transition)
        switch result {
        case .success(let permit):
            return permit
        case .failure(let error):
            metrics.rejections.increment()
            throw error
        }
    }

    /// Records that a permitted call succeeded; `duration` (how long it took) matters only when slow calls are
    /// configured.
    @usableFromInline package func recordSuccess(_ permit: Permit, duration: Duration? = nil) {
        let slow = isSlow(duration)
        if !slow, !permit.isProbe, case .consecutiveFailures = configuration.mode.kind {
            // The closed path: clear the failure count only when there is one.
            guard hasFailures.load(ordering: .acquiring) else { return }
            let done = machine.withTrackedLock { machine -> Bool in
                guard machine.state == .closed || machine.state == .open else { return false }
                machine.consecutiveFailures = 0
                mirror(machine)
                return true
            }
            if done { return }
        }
        record(permit, failure: false, slow: slow)
    }

    /// Records that a permitted call failed with `error`. Errors that are not failures (see
    /// ``Configuration/isFailure``) only free the probe slot.
    @usableFromInline package func recordFailure(_ permit: Permit, error: any Error, duration: Duration? = nil) {
        guard configuration.isFailure(error) else {
            guard permit.isProbe else { return }
            machine.withTrackedLock { machine in
                if machine.state == .halfOpen, machine.period == permit.period {
                    machine.probesGranted = max(0, machine.probesGranted - 1)
                }
            }
            return
        }
        record(permit, failure: true, slow: isSlow(duration))
    }

    private func isSlow(_ duration: Duration?) -> Bool {
        guard let slowCalls = configuration.slowCalls, let duration else { return false }
        return duration > slowCalls.threshold
    }

    /// Counts one outcome and moves the machine if it must.
    private func record(_ permit: Permit, failure: Bool, slow: Bool) {
        let now = clock.now()
        let configuration = configuration
        let transition = machine.withTrackedLock { machine -> Transition? in
            defer { mirror(machine) }
            if permit.isProbe {
                guard machine.state == .halfOpen, machine.period == permit.period else { return nil }
                if failure || slow {
                    machine.openings += 1
                    machine.breakLength = configuration.breakLength(machine.openings)
                    machine.openedAt = machine.halfOpenedAt
                    return machine.move(to: .open, key: key, at: now)
                }
                machine.probesSucceeded += 1
                guard machine.probesSucceeded >= configuration.halfOpenCalls else { return nil }
                machine.resetCounts()
                machine.openings = 0
                return machine.move(to: .closed, key: key, at: now)
            }
            guard machine.state == .closed else { return nil }
            switch configuration.mode.kind {
            case .consecutiveFailures(let threshold):
                guard failure || slow else { return nil }
                machine.consecutiveFailures += 1
                guard machine.consecutiveFailures >= threshold else { return nil }
            case .failureRatio(let threshold, _, let minimumThroughput):
                // Both rates are checked after every call, whatever its outcome (as resilience4j does): a fast
                // success can complete the minimum throughput of a window whose earlier calls were slow.
                let totals = machine.window.record(failure: failure, slow: slow, at: now)
                guard totals.calls >= minimumThroughput else { return nil }
                let failing = Double(totals.failures) >= threshold * Double(totals.calls)
                let slowing =
                    configuration.slowCalls.map { Double(totals.slow) >= $0.rate * Double(totals.calls) } ?? false
                guard failing || slowing else { return nil }
            }
            machine.openings = 1
            machine.breakLength = configuration.breakLength(1)
            machine.openedAt = now
            return machine.move(to: .open, key: key, at: now)
        }
        report(transition)
    }

    /// Runs `body` under the breaker.
    public func run<T>(_ body: () async throws -> T) async throws -> T {
        let permit = try acquire()
        let start = measuresDuration ? clock.now() : .zero
        do {
            let value = try await body()
            recordSuccess(permit, duration: measuresDuration ? clock.now() - start : nil)
            return value
        } catch {
            recordFailure(permit, error: error, duration: measuresDuration ? clock.now() - start : nil)
            throw error
        }
    }

    /// The breaker's clock, read by the stage to time calls.
    @usableFromInline
    func now() -> Duration { clock.now() }

    // MARK: Manual control

    /// Opens the breaker by hand until ``close()``: every call is refused.
    public func isolate() {
        let now = clock.now()
        report(
            machine.withTrackedLock { machine in
                defer { mirror(machine) }
                return machine.move(to: .isolated, key: key, at: now)
            })
    }

    /// Closes the breaker by hand and forgets past failures.
    public func close() {
        let now = clock.now()
        report(
            machine.withTrackedLock { machine in
                machine.resetCounts()
                machine.openings = 0
                machine.period += 1
                defer { mirror(machine) }
                return machine.move(to: .closed, key: key, at: now)
            })
    }

    /// Publishes the machine's state to the lock-free mirrors. Call under the lock after every change.
    private func mirror(_ machine: Machine) {
        isClosed.store(machine.state == .closed, ordering: .releasing)
        hasFailures.store(machine.consecutiveFailures > 0, ordering: .releasing)
    }

    private func report(_ transition: Transition?) {
        guard let transition else { return }
        metrics.state.record(transition.to.gaugeValue)
        metrics.transitions[transition.to]?.increment()
        let level: Logger.Level = transition.to == .closed ? .info : .warning
        logger.log(
            level: level, "circuit breaker \(transition.from) → \(transition.to)",
            metadata: ["breaker": "\(key)", "from": "\(transition.from)", "to": "\(transition.to)"])
        broadcaster.publish(transition)
    }
}

extension CircuitBreaker {
    struct Machine {
        var state: CircuitState = .closed
        var consecutiveFailures = 0
        /// When the current break began.
        var openedAt: Duration = .zero
        /// How long the current break lasts.
        var breakLength: Duration
        /// Breaks since the breaker was last closed.
        var openings = 0
        /// The current half-open period, so late probes of an earlier one are told apart.
        var period: UInt64 = 0
        var halfOpenedAt: Duration = .zero
        var probesGranted = 0
        var probesSucceeded = 0
        var window: RollingWindow

        init(configuration: Configuration) {
            breakLength = configuration.openDuration
            switch configuration.mode.kind {
            case .consecutiveFailures: window = RollingWindow(span: .seconds(1))
            case .failureRatio(_, let span, _): window = RollingWindow(span: span)
            }
        }

        mutating func startProbing(at now: Duration) {
            period += 1
            halfOpenedAt = now
            probesGranted = 0
            probesSucceeded = 0
        }

        mutating func resetCounts() {
            consecutiveFailures = 0
            window.reset()
        }

        mutating func move(to next: CircuitState, key: String, at now: Duration) -> Transition? {
            guard next != state else { return nil }
            let transition = Transition(key: key, from: state, to: next, at: now)
            state = next
            return transition
        }
    }

    /// Outcomes of the last `span`, kept in ten buckets so old ones fall out without a list of timestamps.
    ///
    /// A bucket starts with the first call after the previous one ended (not at a multiple of its width, as a
    /// window aligned to the clock's epoch would), and leaves once all of it is older than `span`: every
    /// outcome of the last `span` counts, none older than `span` plus one bucket.
    struct RollingWindow {
        struct Bucket {
            var startedAt: Duration
            var calls = 0
            var failures = 0
            var slow = 0
        }

        let span: Duration
        let width: Duration
        private(set) var buckets: [Bucket] = []
        private(set) var calls = 0
        private(set) var failures = 0
        private(set) var slow = 0

        init(span: Duration, buckets count: Int = 10) {
            self.span = span
            width = span / count
            // At most `count + 1` buckets are alive (span plus one); reserved once, so recording never allocates.
            buckets.reserveCapacity(count + 2)
        }

        /// Adds an outcome at `now` and returns the window's totals.
        mutating func record(
            failure: Bool, slow isSlow: Bool, at now: Duration
        ) -> (
            calls: Int, failures: Int, slow: Int
        ) {
            evict(at: now)
            if buckets.last.map({ now - $0.startedAt >= width }) ?? true { buckets.append(Bucket(startedAt: now)) }
            let index = buckets.count - 1
            buckets[index].calls += 1
            calls += 1
            if failure {
                buckets[index].failures += 1
                failures += 1
            }
            if isSlow {
                buckets[index].slow += 1
                slow += 1
            }
            return (calls, failures, slow)
        }

        /// Drops the buckets that ended more than `span` ago.
        mutating func evict(at now: Duration) {
            var dropped = 0
            for bucket in buckets {
                guard now - bucket.startedAt >= span + width else { break }
                calls -= bucket.calls
                failures -= bucket.failures
                slow -= bucket.slow
                dropped += 1
            }
            if dropped > 0 { buckets.removeFirst(dropped) }
        }

        mutating func reset() {
            buckets.removeAll(keepingCapacity: true)
            calls = 0
            failures = 0
            slow = 0
        }
    }

    struct Metrics: Sendable {
        let state: Gauge
        let rejections: Counter
        let transitions: [CircuitState: Counter]

        init(key: String, factory: any MetricsFactory) {
            state = Gauge(label: ResilienceMetrics.stateLabel, dimensions: [("key", key)], factory: factory)
            rejections = Counter(
                label: ResilienceMetrics.rejectionsLabel, dimensions: [("key", key)], factory: factory)
            var transitions: [CircuitState: Counter] = [:]
            for state in [CircuitState.closed, .open, .halfOpen, .isolated] {
                transitions[state] = Counter(
                    label: ResilienceMetrics.transitionsLabel,
                    dimensions: [("key", key), ("to", state.rawValue)],
                    factory: factory)
            }
            self.transitions = transitions
        }
    }
}

extension CircuitState {
    /// The state gauge's value: closed 0, half-open 1, open 2, isolated 3, so "above zero" means "not healthy".
    package var gaugeValue: Int {
        switch self {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        case .isolated: 3
        }
    }
}
