import CoreMetrics
import Logging
import Synchronization

/// Stops calling a failing dependency for a while, then lets exactly one probe test it.
///
/// Two modes: consecutive failures (by default 5 failures, then open for 60 s) and failure ratio over a
/// rolling window, which opens only once the window has seen a minimum number of calls. While open, calls are
/// refused with ``CircuitOpenError`` carrying the time until a probe may go. Half-open admits exactly one probe;
/// every other call is refused until it ends: success closes the breaker, failure re-opens it.
///
/// Transitions are published on ``transitions()``, logged, and counted through swift-metrics
/// (`axiom_circuit_breaker_state{key}` gauge, `axiom_circuit_breaker_transitions_total{key,to}`,
/// `axiom_circuit_breaker_rejections_total{key}`). The closed path takes one uncontended lock per call.
///
/// The breaker's states:
///
/// ```
///            failures reach the threshold                 open duration elapsed,
///   closed ───────────────────────────────▶ open ───────────────────────────────▶ half-open (one probe)
///     ▲                                      ▲                                        │
///     │            probe succeeds            │            probe fails                 │
///     └──────────────────────────────────────┼────────────────────────────────────────┘
///                                            └──────── (back to open)
///   isolate() forces `isolated` from any state; close() forces `closed`.
/// ```
public final class CircuitBreaker: Sendable {
    /// Where a breaker stands.
    public typealias State = CircuitState

    /// When a breaker opens.
    public enum Mode: Sendable, Hashable {
        /// After `threshold` failures in a row.
        case consecutiveFailures(threshold: Int)
        /// When at least `minimumThroughput` calls ended within the last `window` and at least `threshold`
        /// (0…1) of them failed.
        case failureRatio(threshold: Double, window: Duration, minimumThroughput: Int)
    }

    /// How a breaker behaves.
    public struct Configuration: Sendable {
        /// When it opens.
        public var mode: Mode
        /// How long it stays open before a probe may go.
        public var openDuration: Duration
        /// Which errors count as failures of the dependency. Others (cancellation by default) count as neither
        /// success nor failure: a probe that ends with one frees the probe slot.
        public var isFailure: @Sendable (any Error) -> Bool

        /// Creates a configuration.
        public init(
            mode: Mode = .consecutiveFailures(threshold: 5), openDuration: Duration = .seconds(60),
            isFailure: @escaping @Sendable (any Error) -> Bool = { !($0 is CancellationError) }
        ) {
            self.mode = mode
            self.openDuration = openDuration
            self.isFailure = isFailure
        }

        /// 5 consecutive failures, then open for 60 s.
        public static var standard: Configuration { Configuration() }
    }

    /// A change of state.
    public struct Transition: Sendable, Hashable {
        /// The breaker's key.
        public let key: String
        /// The state it left.
        public let from: State
        /// The state it entered.
        public let to: State
        /// When, on the breaker's clock.
        public let at: Duration
    }

    /// What ``acquire()`` grants: a normal call, or the one half-open probe.
    public enum Permit: Sendable, Hashable {
        /// A call in the closed state.
        case normal
        /// The single half-open probe.
        case probe
    }

    /// The dependency this breaker protects.
    public let key: String
    /// How it behaves.
    public let configuration: Configuration

    private let clock: RuntimeClock
    private let machine: Mutex<Machine>
    // Mirrors of the machine, written under its lock, read without it: the closed path of the consecutive mode
    // is then two atomic loads. A reader racing a writer sees the call as ordered just before the change.
    private let isClosed = Atomic<Bool>(true)
    private let hasFailures = Atomic<Bool>(false)
    private let broadcaster = Broadcaster<Transition>()
    private let metrics: Metrics
    private let logger: Logger

    /// Creates a breaker for `key`.
    public convenience init(
        key: String, configuration: Configuration = .standard, clock: some Clock<Duration> = ContinuousClock(),
        metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger = .axiom("axiom.resilience")
    ) {
        self.init(
            key: key, configuration: configuration, runtimeClock: RuntimeClock(clock), metrics: metrics, logger: logger)
    }

    /// Creates a breaker for `key` on an already wrapped clock.
    public init(
        key: String, configuration: Configuration = .standard, runtimeClock: RuntimeClock,
        metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger = .axiom("axiom.resilience")
    ) {
        self.key = key
        self.configuration = configuration
        self.clock = runtimeClock
        self.machine = Mutex(Machine(mode: configuration.mode))
        self.metrics = Metrics(key: key, factory: metrics)
        self.logger = logger.redacting()
        self.metrics.state.record(State.closed.gaugeValue)
    }

    /// The current state. An open breaker whose time is up still reads `open` until a call probes it.
    public var state: State { machine.withTrackedLock { $0.state } }

    /// Every transition from now on.
    public func transitions() -> AsyncStream<Transition> { broadcaster.subscribe() }

    // MARK: Calls

    /// Asks to make a call. Pair every granted permit with exactly one `record…` call.
    ///
    /// - Throws: ``CircuitOpenError`` when the breaker refuses, with the time until a call may go.
    public func acquire() throws(CircuitOpenError) -> Permit {
        let result: Result<Permit, CircuitOpenError>
        var transition: Transition?
        if isClosed.load(ordering: .acquiring) { return .normal }
        let now = clock.now()
        let openDuration = configuration.openDuration
        result = machine.withTrackedLock { machine in
            switch machine.state {
            case .closed:
                return .success(.normal)
            case .isolated:
                return .failure(CircuitOpenError(key: key, state: .isolated, retryAfter: nil))
            case .open:
                let reopensAt = machine.openedAt + openDuration
                guard now >= reopensAt else {
                    return .failure(CircuitOpenError(key: key, state: .open, retryAfter: reopensAt - now))
                }
                transition = machine.move(to: .halfOpen, key: key, at: now)
                machine.probeInFlight = true
                mirror(machine)
                return .success(.probe)
            case .halfOpen:
                if !machine.probeInFlight {
                    machine.probeInFlight = true
                    return .success(.probe)
                }
                // The probe's verdict is unknown: if it fails the breaker stays open this long.
                return .failure(CircuitOpenError(key: key, state: .halfOpen, retryAfter: openDuration))
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

    /// Records that a permitted call succeeded.
    public func recordSuccess(_ permit: Permit) {
        switch configuration.mode {
        case .consecutiveFailures:
            if permit == .normal {
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
        case .failureRatio:
            break
        }
        let now = clock.now()
        let transition = machine.withTrackedLock { machine -> Transition? in
            if permit == .probe {
                machine.probeInFlight = false
                guard machine.state == .halfOpen else { return nil }
                machine.resetCounts()
                defer { mirror(machine) }
                return machine.move(to: .closed, key: key, at: now)
            }
            if machine.state == .closed { machine.window.record(failure: false, at: now) }
            return nil
        }
        report(transition)
    }

    /// Records that a permitted call failed with `error`. Errors that are not failures (see
    /// ``Configuration/isFailure``) only free the probe slot.
    public func recordFailure(_ permit: Permit, error: any Error) {
        let counts = configuration.isFailure(error)
        let now = clock.now()
        let mode = configuration.mode
        let transition = machine.withTrackedLock { machine -> Transition? in
            defer { mirror(machine) }
            if permit == .probe {
                machine.probeInFlight = false
                guard counts, machine.state == .halfOpen else { return nil }
                machine.openedAt = now
                return machine.move(to: .open, key: key, at: now)
            }
            guard counts, machine.state == .closed else { return nil }
            switch mode {
            case .consecutiveFailures(let threshold):
                machine.consecutiveFailures += 1
                guard machine.consecutiveFailures >= threshold else { return nil }
            case .failureRatio(let threshold, _, let minimumThroughput):
                machine.window.record(failure: true, at: now)
                let (calls, failures) = machine.window.totals(at: now)
                guard calls >= minimumThroughput, Double(failures) >= threshold * Double(calls) else { return nil }
            }
            machine.openedAt = now
            return machine.move(to: .open, key: key, at: now)
        }
        report(transition)
    }

    /// Runs `body` under the breaker.
    public func run<T>(_ body: () async throws -> T) async throws -> T {
        let permit = try acquire()
        do {
            let value = try await body()
            recordSuccess(permit)
            return value
        } catch {
            recordFailure(permit, error: error)
            throw error
        }
    }

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
                machine.probeInFlight = false
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
        var state: State = .closed
        var consecutiveFailures = 0
        var openedAt: Duration = .zero
        var probeInFlight = false
        var window: RollingWindow

        init(mode: Mode) {
            switch mode {
            case .consecutiveFailures: window = RollingWindow(span: .seconds(1), buckets: 1)
            case .failureRatio(_, let span, _): window = RollingWindow(span: span, buckets: 10)
            }
        }

        mutating func resetCounts() {
            consecutiveFailures = 0
            window.reset()
        }

        mutating func move(to next: State, key: String, at now: Duration) -> Transition? {
            guard next != state else { return nil }
            let transition = Transition(key: key, from: state, to: next, at: now)
            state = next
            return transition
        }
    }

    /// Outcomes of the last `span`, kept in buckets so old ones fall out without a list of timestamps.
    struct RollingWindow {
        struct Bucket {
            var epoch: Int64 = .min
            var calls = 0
            var failures = 0
        }

        let bucketNanos: Int64
        var buckets: [Bucket]

        init(span: Duration, buckets count: Int) {
            bucketNanos = max(1, span.wholeNanoseconds / Int64(count))
            buckets = Array(repeating: Bucket(), count: count)
        }

        mutating func record(failure: Bool, at now: Duration) {
            let epoch = now.wholeNanoseconds / bucketNanos
            let index = Int(epoch % Int64(buckets.count))
            if buckets[index].epoch != epoch { buckets[index] = Bucket(epoch: epoch) }
            buckets[index].calls += 1
            if failure { buckets[index].failures += 1 }
        }

        func totals(at now: Duration) -> (calls: Int, failures: Int) {
            let epoch = now.wholeNanoseconds / bucketNanos
            let oldest = epoch - Int64(buckets.count) + 1
            var calls = 0
            var failures = 0
            for bucket in buckets where bucket.epoch >= oldest && bucket.epoch <= epoch {
                calls += bucket.calls
                failures += bucket.failures
            }
            return (calls, failures)
        }

        mutating func reset() {
            for index in buckets.indices { buckets[index] = Bucket() }
        }
    }

    struct Metrics: Sendable {
        let state: Gauge
        let rejections: Counter
        let transitions: [State: Counter]

        init(key: String, factory: any MetricsFactory) {
            state = Gauge(label: "axiom_circuit_breaker_state", dimensions: [("key", key)], factory: factory)
            rejections = Counter(
                label: "axiom_circuit_breaker_rejections_total", dimensions: [("key", key)], factory: factory)
            var transitions: [State: Counter] = [:]
            for state in [State.closed, .open, .halfOpen, .isolated] {
                transitions[state] = Counter(
                    label: "axiom_circuit_breaker_transitions_total",
                    dimensions: [("key", key), ("to", state.rawValue)],
                    factory: factory)
            }
            self.transitions = transitions
        }
    }
}

extension CircuitState {
    /// The state gauge's value: closed 0, half-open 1, open 2, isolated 3.
    var gaugeValue: Int {
        switch self {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        case .isolated: 3
        }
    }
}
