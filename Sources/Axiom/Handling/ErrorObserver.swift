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
            metadata["stack"] = .array(stack.addresses.map { .string("0x" + String($0, radix: 16)) })
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
/// Counters are created once per (code, disposition, layer) and cached, so counting allocates nothing
/// after the first event of a kind. Codes made of string literals (every `IdentifiableError` written in
/// Swift) find their counter without a lock and without hashing a string: the cache for them is an immutable
/// table, keyed by the strings' raw bits and published through an atomic pointer, the way the registry's
/// lookups work. Other codes (decoded at run time) take a locked dictionary.
public final class MetricsObserver: ErrorObserver {
    /// The counter's label.
    public static let label = "axiom_errors_total"

    private struct Key: Hashable {
        let code: ErrorCode
        let disposition: Disposition
        let layer: Layer
    }

    /// The key of a literal code's counter: raw bits, no string to hash or compare.
    struct FastKey: Hashable, Sendable {
        let code: RawCodeKey
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
            return code.slotHash ^ Int(bitPattern: (layerBits >> 7) &+ dispositionBits &* 0xBF58_476D_1CE4_E5B9)
        }
    }

    typealias FastCounters = OpenTable<FastKey, Counter>

    private struct State {
        var counters: [Key: Counter] = [:]
        /// Replaced fast tables, each still retained once: a reader may be using one.
        var retired: [UInt] = []
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())
    /// The address of the current fast table, retained once on behalf of the observer.
    private let fastPointer: Atomic<UInt>

    /// Counts through `factory` (the bootstrapped one by default).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        let empty = FastCounters([], hash: { $0.slotHash })
        fastPointer = Atomic(UInt(bitPattern: Unmanaged.passRetained(empty).toOpaque()))
    }

    deinit {
        // No reader can exist once the observer is gone.
        Self.table(at: fastPointer.load(ordering: .acquiring)).release()
        state.withLock { state in
            for address in state.retired { Self.table(at: address).release() }
        }
    }

    private static func table(at address: UInt) -> Unmanaged<FastCounters> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
    }

    public func observe(_ event: ErrorEvent, resolution: ErrorResolution) {
        let code = event.code
        let disposition = resolution.disposition
        if let raw = RawCodeKey(code) {
            let key = FastKey(code: raw, disposition: disposition, layer: event.layer)
            // Tables are never freed while the observer lives, so the read needs no retain of its own.
            let found = Self.table(at: fastPointer.load(ordering: .acquiring))
                ._withUnsafeGuaranteedRef { $0.lookup(key, hash: key.slotHash) }
            if let counter = found {
                counter.increment()
                return
            }
        }
        counter(for: Key(code: code, disposition: disposition, layer: event.layer)).increment()
    }

    /// The counter of a key, made on first use; a literal code's counter also goes into the fast table.
    private func counter(for key: Key) -> Counter {
        state.withLock { state in
            if let counter = state.counters[key] { return counter }
            let counter = Counter(
                label: Self.label,
                dimensions: [
                    ("domain", key.code.domain), ("code", key.code.code), ("disposition", key.disposition.rawValue),
                    ("layer", key.layer.name),
                ], factory: factory)
            state.counters[key] = counter
            if let raw = RawCodeKey(key.code) {
                let current = fastPointer.load(ordering: .acquiring)
                let next = Self.table(at: current)._withUnsafeGuaranteedRef {
                    $0.inserting(FastKey(code: raw, disposition: key.disposition, layer: key.layer), counter)
                }
                fastPointer.store(UInt(bitPattern: Unmanaged.passRetained(next).toOpaque()), ordering: .releasing)
                state.retired.append(current)
            }
            return counter
        }
    }
}
