import CoreMetrics
import Logging
import Synchronization

/// Sees every error episode once, when it ends. Logging and metrics are observers.
public protocol ErrorObserver: Sendable {
    /// Called exactly once per event, with how it ended.
    func observe(_ event: ErrorEvent, resolution: ErrorResolution)
}

/// Logs each outcome through swift-log: one line with code, category, layer and disposition as metadata.
///
/// Ignored errors log at debug, recoveries at info, escalations at debug (the next layer logs the rest),
/// defaults at the descriptor's severity. The error's own text is never logged for sensitive descriptors.
///
/// An event's stack is described when its line is written, by the stack's ``StackDescriber``: `stack` holds its
/// frames (module-relative `module+0xoffset`, or symbolicated `function (file:line)`; never a bare address) and
/// `stackModules` the `module:buildid:path` of each module a module-relative frame names.
///
/// Every line is redacted, whenever the observer was made: the default logger finds its backend per line (see
/// ``FrameworkLogHandler``), and a logger passed in is put behind a ``RedactingLogHandler`` unless it already
/// redacts.
public struct LoggingObserver: ErrorObserver {
    /// The logger it writes to (behind redaction).
    public let logger: Logger

    /// Logs to `logger`, or by default to the framework's `axiom.errors` logger.
    public init(logger: Logger = .axiom("axiom.errors")) { self.logger = logger.redacting() }

    public func observe(_ event: ErrorEvent, resolution: ErrorResolution) {
        let level = Self.level(event, resolution)
        guard logger.logLevel <= level else { return }
        logger.log(
            level: level, "\(event.code) \(resolution)",
            metadata: Self.metadata(event, resolution))
    }

    static func level(_ event: ErrorEvent, _ resolution: ErrorResolution) -> Logger.Level {
        switch resolution {
        case .ignored, .escalated: .debug
        case .recovered: .info
        case .handled: event.descriptor.severity.loggerLevel
        }
    }

    /// The structured metadata of one outcome.
    public static func metadata(_ event: ErrorEvent, _ resolution: ErrorResolution) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "code": "\(event.code)",
            "domain": "\(event.code.domain)",
            "category": "\(event.descriptor.category.rawValue)",
            "layer": "\(event.layer)",
            "disposition": "\(resolution.disposition.rawValue)",
            "operation": "\(event.operation)",
            "attempt": "\(event.attempt)",
            "source": "\(event.descriptor.source)",
            "key": "\(event.descriptor.messageKey)",
        ]
        if case .escalated(let target) = resolution { metadata["escalatedTo"] = "\(target)" }
        if let from = event.escalatedFrom { metadata["escalatedFrom"] = "\(from)" }
        if !event.previousErrors.isEmpty { metadata["previousErrors"] = "\(event.previousErrors.count)" }
        if !event.handlerFailures.isEmpty {
            metadata["handlerFailures"] = .array(event.handlerFailures.map { .string($0.description) })
        }
        if !event.descriptor.isSensitive { metadata["error"] = "\(event.error)" }
        for (key, value) in event.metadata where metadata[key] == nil { metadata[key] = "\(value)" }
        if let stack = event.stack {
            // Described here, when the line is written: symbolicated, or module-relative with build-ids.
            let logged = stack.logged
            metadata["stack"] = .array(logged.frames.map { .string($0) })
            if !logged.modules.isEmpty { metadata["stackModules"] = .array(logged.modules.map { .string($0) }) }
        }
        return metadata
    }
}

extension ErrorSeverity {
    /// The swift-log level of this severity.
    public var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}

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
/// the layer. Unregistered codes take a locked dictionary.
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
                case .default: 4
                }
            let descriptorBits = (descriptor >> 4) &* 0xBF58_476D_1CE4_E5B9
            return Int(bitPattern: descriptorBits ^ (layerBits >> 7) &+ dispositionBits &* 0x94D0_49BB_1331_11EB)
        }
    }

    /// What the fast table knows of a descriptor: its counter, or that it stands for unregistered codes.
    enum FastCounter: Sendable {
        case counter(Counter)
        case unregistered
    }

    private struct State {
        var counters: [Key: Counter] = [:]
        var unregisteredDomains: Set<String> = []
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())
    private let fast = PublishedTable<FastKey, FastCounter>(hash: { $0.slotHash })

    /// Counts through `factory` (the bootstrapped one by default).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    public func observe(_ event: ErrorEvent, resolution: ErrorResolution) {
        let key = FastKey(
            descriptor: UInt(bitPattern: event.descriptorReference.toOpaque()), disposition: resolution.disposition,
            layer: event.layer)
        switch fast.lookup(key, hash: key.slotHash) {
        case .counter(let counter)?: counter.increment()
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
            .counter(counter(domain: descriptor.code.domain, code: descriptor.code.code, key))
        }
        if case .counter(let counter)? = found { counter.increment() }
    }

    /// The counter of a series, made on first use. A registered code comes here once per series; an unregistered
    /// one every time, since its series depends on its domain. A nil `code` is the unregistered series of `domain`.
    private func counter(domain: String, code: String?, _ fastKey: FastKey) -> Counter {
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
            let counter = Counter(
                label: Self.label,
                dimensions: [
                    ("domain", key.domain), ("code", key.code), ("disposition", key.disposition.rawValue),
                    ("layer", key.layer.name),
                ], factory: factory)
            state.counters[key] = counter
            return counter
        }
    }

    /// How many series this observer has made (for tests of its bounds).
    var seriesCount: Int { state.withTrackedLock { $0.counters.count } }
}
