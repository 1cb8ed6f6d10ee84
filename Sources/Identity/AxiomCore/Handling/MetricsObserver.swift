import CAxiomFlightRecorder
import CoreMetrics
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
import AxiomCatalog
#endif

/// Counts each outcome through swift-metrics: `axiom_errors_total{domain, code, disposition, layer}`.
///
/// A registered code counts under its descriptor's code, so a numeric alias and its name share one series.
/// Codes that no catalog registers (a peer's, an unknown Swift type's) collapse into one series per domain, with
/// the code `unregistered`, and at most `maximumUnregisteredDomains` such domains; later ones count under the
/// domain `other`. Whatever peers send, the number of series stays bounded; the log line keeps the exact code.
///
/// Counters are created once per series and cached, so counting allocates nothing after the first event of a
/// kind. A registered code finds its counter without a lock and without reading a string: the cache is a
/// lock-free table keyed by the descriptor's address (registered descriptors are immortal), the disposition and
/// the layer. Unregistered codes take a locked dictionary. The observer holds each series' handler unretained (it
/// keeps them alive itself), so threads that count the same series share no reference count.
///
/// ## Counting from many cores
///
/// A series is counted straight into the backend's counter, so a count can be read as soon as the event is
/// observed. A backend's counter is one shared value, though, and threads on different cores that keep
/// incrementing the same one pass its cache line back and forth on every count. So once threads have taken turns
/// at a series `turnsBeforeStriping` times, the series is *striped*: each thread counts into a stripe of its own
/// (one per flight-recorder shard, so written by that shard's owner alone, and one that threads without a shard
/// share; each on its own cache line), and the stripes' sums reach the backend's counter
/// every `flushInterval` (one second by default), at ``flushAll()``, and when the observer is released. No count is
/// lost; a striped series' counts reach the backend up to one interval late, which a metrics exporter that reads
/// every ten seconds or more does not see. A test that counts from many tasks and reads the counters at once
/// calls ``flushAll()`` first.
public final class MetricsObserver: ErrorObserver {
    /// The counter's label.
    package static let label = "axiom_errors_total"
    /// The `code` of the series that counts codes no catalog registers.
    package static let unregisteredCode = "unregistered"
    /// The `domain` of unregistered codes past ``maximumUnregisteredDomains``.
    package static let otherDomain = "other"
    /// How many domains of unregistered codes get a series of their own.
    package static let maximumUnregisteredDomains = 64
    /// How many times threads take turns at counting a series before it is striped.
    package static let turnsBeforeStriping = 1024
    /// How many series may be striped (each takes about a kilobyte); later ones keep counting straight into the
    /// backend.
    package static let maximumStripedSeries = 1024

    private struct Key: Hashable {
        let domain: String
        let code: String
        let disposition: Disposition
        let layer: Layer
    }

    /// The key of a descriptor's counter: three words, no string to hash or compare.
    struct FastKey: Hashable, Sendable {
        let descriptor: UInt
        let disposition: Disposition
        let layer: Layer

        var slotHash: Int {
            let layerBits = UInt(bitPattern: layer.storage.toOpaque()) &* 0x9E37_79B9_7F4A_7C15
            let dispositionBits: UInt =
                switch disposition {
                case .ignore: 1
                case .recover: 2
                case .escalate: 3
                case .handle: 4
                }
            let descriptorBits = (descriptor >> 4) &* 0xBF58_476D_1CE4_E5B9
            return Int(bitPattern: descriptorBits ^ (layerBits >> 7) &+ dispositionBits &* 0x94D0_49BB_1331_11EB)
        }
    }

    /// What the fast table knows of a descriptor: its series, or that it stands for unregistered codes.
    enum FastCounter: Sendable {
        /// Held unretained: `State.counters` keeps every series for the observer's life.
        case counter(Unmanaged<Series>)
        case unregistered
    }

    /// One series: the backend's handler, made once (swift-metrics' `Counter` wraps the same handler; holding the
    /// handler itself spares a call and a reference count per event), and its stripes once it has any.
    final class Series: @unchecked Sendable {
        // @unchecked: `flushed` is read and written only under the striping state's lock (`Striping.flush`); every
        // other field is a `let` of a Sendable type or an atomic. The stripes' memory is initialized before its
        // address is published (release) and read only through atomics. `striping` is unowned: the observer owns
        // it and every series, and a series uses it only while counting, which the observer's life encloses.
        let handler: any CounterHandler
        private unowned(unsafe) let striping: Striping
        /// The thread that counted last (its shard + 1, or its `pthread_self()`: no other live thread has either);
        /// written only when another thread counts.
        private let lastCounter = Atomic<UInt>(0)
        /// How many times the counting thread changed.
        private let turns = Atomic<Int>(0)
        /// The address of the stripes, 0 until the series is striped.
        private let stripesAddress = Atomic<UInt>(0)
        /// How much of the stripes' sum the backend has been given.
        var flushed: Int64 = 0

        /// Stripes per series: one per flight-recorder shard and one for threads without a shard, each alone on a
        /// cache line.
        static let stripeCount = Int(AXIOM_RECENT_ERROR_STRIPES)
        static let stripeStride = 64

        init(_ handler: any CounterHandler, striping: Striping) {
            self.handler = handler
            self.striping = striping
        }

        deinit {
            let address = stripesAddress.load(ordering: .acquiring)
            if address != 0 { UnsafeMutableRawPointer(bitPattern: address)!.deallocate() }
        }

        @inline(__always)
        func increment() {
            let stripes = stripesAddress.load(ordering: .acquiring)
            if stripes != 0 { return incrementStripe(of: stripes) }
            // A load of a line that changes only when another thread counts: shared by the cores, not passed
            // between them, while one thread counts. A thread is known by the shard it owns (no other live thread
            // owns it), else by its pthread_self(), an address, so never a number as small as a shard's.
            let shard = axiom_flight_recorder_thread_shard()
            let thread = shard < AXIOM_RECENT_ERROR_SHARDS ? UInt(shard) &+ 1 : UInt(pthread_self())
            if lastCounter.load(ordering: .relaxed) != thread { tookTurn(thread) }
            handler.increment(by: 1)
        }

        /// `increment` of a striped series. Out of line, so that the unstriped path inlines small.
        @inline(never)
        private func incrementStripe(of stripes: UInt) {
            let shard = Int(axiom_flight_recorder_thread_shard())
            let stripe = Self.stripe(shard, of: stripes)
            if shard < Int(AXIOM_RECENT_ERROR_SHARDS) {
                // The thread owns the shard, so it is the stripe's one writer (a shard changes owner only
                // through the recorder's release and acquire): a load and a store, no read-modify-write.
                stripe.pointee.store(stripe.pointee.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
            } else {
                // Threads without a shard of their own share the last stripe: an atomic add loses none.
                stripe.pointee.wrappingAdd(1, ordering: .relaxed)
            }
        }

        @inline(never)
        private func tookTurn(_ thread: UInt) {
            lastCounter.store(thread, ordering: .relaxed)
            if turns.wrappingAdd(1, ordering: .relaxed).newValue == MetricsObserver.turnsBeforeStriping {
                striping.stripe(self)
            }
        }

        private static func stripe(_ index: Int, of stripes: UInt) -> UnsafeMutablePointer<Atomic<Int64>> {
            UnsafeMutablePointer(bitPattern: stripes &+ UInt(index &* stripeStride))!
        }

        /// Gives the series its stripes (once; under the striping state's lock).
        func makeStripes() {
            guard stripesAddress.load(ordering: .relaxed) == 0 else { return }
            let memory = UnsafeMutableRawPointer.allocate(
                byteCount: Self.stripeCount * Self.stripeStride, alignment: Self.stripeStride)
            for index in 0..<Self.stripeCount {
                (memory + index * Self.stripeStride).bindMemory(to: Atomic<Int64>.self, capacity: 1)
                    .initialize(to: Atomic(0))
            }
            stripesAddress.store(UInt(bitPattern: memory), ordering: .releasing)
        }

        /// Adds what the stripes counted since the last flush to the backend's counter (under the striping state's
        /// lock).
        func flushStripes() {
            let stripes = stripesAddress.load(ordering: .acquiring)
            guard stripes != 0 else { return }
            var sum: Int64 = 0
            for index in 0..<Self.stripeCount {
                sum &+= Self.stripe(index, of: stripes).pointee.load(ordering: .relaxed)
            }
            let delta = sum &- flushed
            flushed = sum
            if delta != 0 { handler.increment(by: delta) }
        }
    }

    /// The striped series, and the task that flushes them every interval.
    final class Striping: Sendable {
        /// Every observer's striping that has striped a series, for ``MetricsObserver/flushAll()``.
        private struct Reference: Sendable { weak var striping: Striping? }
        private static let active = Mutex<[Reference]>([])

        static func flushAll() {
            let all = active.withTrackedLock { references in
                references.removeAll { $0.striping == nil }
                return references.compactMap(\.striping)
            }
            for striping in all { striping.flush() }
        }

        private struct State {
            var series: [Series] = []
            var flusher: Task<Void, Never>?
            var stopped = false
        }
        private let state = Mutex(State())
        let interval: Duration
        let clock: RuntimeClock

        init(interval: Duration, clock: RuntimeClock) {
            self.interval = interval
            self.clock = clock
        }

        /// Stripes `series`, unless the observer has striped as many as it may; starts the flusher with the first.
        func stripe(_ series: Series) {
            state.withTrackedLock { state in
                guard !state.stopped, state.series.count < MetricsObserver.maximumStripedSeries else { return }
                series.makeStripes()
                state.series.append(series)
                guard state.flusher == nil else { return }
                Self.active.withTrackedLock { $0.append(Reference(striping: self)) }
                let (interval, clock) = (interval, clock)
                state.flusher = Task.detached(priority: .utility) { [weak self] in
                    while true {
                        do { try await clock.sleep(for: interval) } catch { return }
                        guard let self else { return }
                        self.flush()
                    }
                }
            }
        }

        func flush() {
            state.withTrackedLock { Self.flush($0) }
        }

        private static func flush(_ state: State) {
            for series in state.series { series.flushStripes() }
        }

        /// The observer is going: its last counts go to the backend, the flusher ends.
        func stop() {
            state.withTrackedLock { state in
                Self.flush(state)
                state.stopped = true
                state.series = []
                state.flusher?.cancel()
                state.flusher = nil
            }
        }

        var stripedCount: Int { state.withTrackedLock { $0.series.count } }
    }

    private struct State {
        var counters: [Key: Series] = [:]
        var unregisteredDomains: Set<String> = []
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())
    private let fast: PublishedTable<FastKey, FastCounter>
    private let striping: Striping

    /// Counts through `factory` (the bootstrapped one by default). Striped series reach the backend every
    /// `flushInterval` on `clock` (see "Counting from many cores").
    public convenience init(
        factory: any MetricsFactory = MetricsSystem.factory, flushInterval: Duration = .seconds(1),
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            factory: factory, fastSeriesLimit: 1 << 16, flushInterval: flushInterval, clock: RuntimeClock(clock))
    }

    /// Counts through `factory`, keeping at most `fastSeriesLimit` series in the lock-free table; the others are
    /// counted through the locked map.
    init(
        factory: any MetricsFactory, fastSeriesLimit: Int, flushInterval: Duration = .seconds(1),
        clock: RuntimeClock = .continuous
    ) {
        self.factory = factory
        fast = PublishedTable(maxCount: fastSeriesLimit, hash: { $0.slotHash })
        striping = Striping(interval: flushInterval, clock: clock)
    }

    deinit { striping.stop() }

    /// Adds the counts that striped series hold per thread to the backend's counters now. Counting is otherwise
    /// immediate until a series is striped, then up to one flush interval late (see "Counting from many cores").
    package func flush() { striping.flush() }

    /// Adds the counts that striped series hold per thread to the backend's counters now, for every metrics
    /// observer of the process that has striped series: for a shutdown, before the
    /// metrics exporter's last export (`AxiomOpenTelemetry`'s export does it on graceful shutdown).
    public static func flushAll() { Striping.flushAll() }

    public func observe(_ event: ErrorEvent, disposition: Disposition) { count(event, disposition) }

    /// ``observe(_:disposition:)``, inlined into the pipeline's call of this observer (its box calls it directly).
    @inline(__always)
    func count(_ event: borrowing ErrorEvent, _ disposition: Disposition) {
        let key = FastKey(
            descriptor: UInt(bitPattern: event.descriptorReference.toOpaque()), disposition: disposition,
            layer: event.layer)
        let found = fast.lookup(key, hash: key.slotHash)
        if case .counter(let series)? = found {
            series._withUnsafeGuaranteedRef { $0.increment() }
            return
        }
        countSlowly(event, key, found)
    }

    /// An event of an unregistered code (`found` says so), or the first of its series. Out of line: the usual path
    /// stays small.
    @inline(never)
    private func countSlowly(_ event: ErrorEvent, _ key: FastKey, _ found: FastCounter?) {
        if case .unregistered? = found {
            counter(domain: event.code.domain, code: nil, key).increment()
        } else {
            countFirst(event, key)
        }
    }

    /// The first event of a descriptor, disposition and layer.
    private func countFirst(_ event: ErrorEvent, _ key: FastKey) {
        let descriptor = event.descriptor
        let code = event.code
        if descriptor.code == ErrorCatalog.unknownCode && code != ErrorCatalog.unknownCode {
            _ = fast.value(for: key) { .unregistered }
            counter(domain: code.domain, code: nil, key).increment()
            return
        }
        let found = fast.value(for: key) {
            .counter(Unmanaged.passUnretained(counter(domain: descriptor.code.domain, code: descriptor.code.code, key)))
        }
        if case .counter(let series)? = found {
            series._withUnsafeGuaranteedRef { $0.increment() }
        } else {
            // The fast table is full: the series is counted through the locked map, each time.
            counter(domain: descriptor.code.domain, code: descriptor.code.code, key).increment()
        }
    }

    /// The counter of a series, made on first use. A registered code comes here once per series; an unregistered
    /// one every time, since its series depends on its domain. A nil `code` is the unregistered series of `domain`.
    private func counter(domain: String, code: String?, _ fastKey: FastKey) -> Series {
        state.withTrackedLock { state in
            var domain = domain
            if code == nil && !state.unregisteredDomains.contains(domain) {
                if state.unregisteredDomains.count < Self.maximumUnregisteredDomains {
                    state.unregisteredDomains.insert(domain)
                } else {
                    domain = Self.otherDomain
                }
            }
            let key = Key(
                domain: domain, code: code ?? Self.unregisteredCode, disposition: fastKey.disposition,
                layer: fastKey.layer)
            if let counter = state.counters[key] { return counter }
            let series = Series(
                factory.makeCounter(
                    label: Self.label,
                    dimensions: [
                        ("domain", key.domain), ("code", key.code), ("disposition", key.disposition.rawValue),
                        ("layer", key.layer.name),
                    ]),
                striping: striping)
            state.counters[key] = series
            return series
        }
    }

    /// How many series this observer has made (for tests of its bounds).
    var seriesCount: Int { state.withTrackedLock { $0.counters.count } }
    /// How many of them are striped.
    var stripedSeriesCount: Int { striping.stripedCount }
}
