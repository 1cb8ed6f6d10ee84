import CoreMetrics
import Logging
import Synchronization

/// Counts each outcome through swift-metrics: `axiom_errors_total{domain, code, disposition, layer}`.
///
/// A registered code counts under its descriptor's code, so a numeric alias and its name share one series.
/// Codes that no catalog registers (a peer's, an unknown Swift type's) collapse into one series per domain, with
/// the code `unregistered`, and at most ``maximumUnregisteredDomains`` such domains; later ones count under the
/// domain `other`. Whatever peers send, the number of series stays bounded; the log line keeps the exact code.
///
/// Counters are created once per series and cached, so counting allocates nothing after the first event of a
/// kind. A registered code finds its counter without a lock and without reading a string: the cache is a
/// lock-free table keyed by the descriptor's address (registered descriptors are immortal), the disposition and
/// the layer. Unregistered codes take a locked dictionary. Counting writes nothing but the backend's counter: the
/// observer holds each series' handler unretained (it keeps them alive itself), so threads that count the same
/// series share no reference count, only the counter the backend gives them.
public final class MetricsObserver: ErrorObserver {
    /// The counter's label.
    public static let label = "axiom_errors_total"
    /// The `code` of the series that counts codes no catalog registers.
    public static let unregisteredCode = "unregistered"
    /// The `domain` of unregistered codes past ``maximumUnregisteredDomains``.
    public static let otherDomain = "other"
    /// How many domains of unregistered codes get a series of their own.
    public static let maximumUnregisteredDomains = 64

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
    /// handler itself spares a call and a reference count per event).
    final class Series: Sendable {
        let handler: any CounterHandler
        init(_ handler: any CounterHandler) { self.handler = handler }

        @inline(__always)
        func increment() { handler.increment(by: 1) }
    }

    private struct State {
        var counters: [Key: Series] = [:]
        var unregisteredDomains: Set<String> = []
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())
    private let fast: PublishedTable<FastKey, FastCounter>

    /// Counts through `factory` (the bootstrapped one by default).
    public convenience init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.init(factory: factory, fastSeriesLimit: 1 << 16)
    }

    /// Counts through `factory`, keeping at most `fastSeriesLimit` series in the lock-free table; the others are
    /// counted through the locked map.
    init(factory: any MetricsFactory, fastSeriesLimit: Int) {
        self.factory = factory
        fast = PublishedTable(maxCount: fastSeriesLimit, hash: { $0.slotHash })
    }

    public func observe(_ event: ErrorEvent, resolution: ErrorResolution) {
        let key = FastKey(
            descriptor: UInt(bitPattern: event.descriptorReference.toOpaque()), disposition: resolution.disposition,
            layer: event.layer)
        switch fast.lookup(key, hash: key.slotHash) {
        case .counter(let series)?: series._withUnsafeGuaranteedRef { $0.increment() }
        case .unregistered?: counter(domain: event.code.domain, code: nil, key).increment()
        case nil: countFirst(event, key)
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
                    ]))
            state.counters[key] = series
            return series
        }
    }

    /// How many series this observer has made (for tests of its bounds).
    var seriesCount: Int { state.withTrackedLock { $0.counters.count } }
}
