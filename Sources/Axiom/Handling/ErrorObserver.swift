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
public struct LoggingObserver: ErrorObserver {
    /// The logger it writes to.
    public let logger: Logger

    /// Logs to `logger`.
    public init(logger: Logger = Logger(label: "axiom.errors")) { self.logger = logger }

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
/// after the first event of a kind.
public final class MetricsObserver: ErrorObserver {
    /// The counter's label.
    public static let label = "axiom_errors_total"

    private struct Key: Hashable {
        let code: ErrorCode
        let disposition: Disposition
        let layer: Layer
    }

    private let factory: any MetricsFactory
    private let counters = Mutex<[Key: Counter]>([:])

    /// Counts through `factory` (the bootstrapped one by default).
    public init(factory: any MetricsFactory = MetricsSystem.factory) { self.factory = factory }

    public func observe(_ event: ErrorEvent, resolution: ErrorResolution) {
        let key = Key(code: event.code, disposition: resolution.disposition, layer: event.layer)
        let counter = counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: Self.label,
                dimensions: [
                    ("domain", key.code.domain), ("code", key.code.code), ("disposition", key.disposition.rawValue),
                    ("layer", key.layer.name),
                ], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}
