import AxiomCatalog
import CoreMetrics
import Logging
import Synchronization

/// Logs each outcome through swift-log: one line with code, category, layer and disposition as metadata. The code is
/// the canonical one (`ErrorEvent.canonicalCode`): a numeric alias is logged under the name it stands for.
///
/// Ignored errors log at debug, recoveries at info, escalations at debug (the next layer logs the rest),
/// defaults at the descriptor's severity. The error's own text is never logged for sensitive descriptors.
///
/// An event's stack is described when its line is written, by the describer its capturer gave it: `stack` holds its
/// frames (module-relative `module+0xoffset`, or symbolicated `function (file:line)`; never a bare address) and
/// `stackModules` the `module:buildid:path` of each module a module-relative frame names.
///
/// Every line is redacted, whenever the observer was made: the default logger finds its backend per line (see
/// ``RedactingLogHandler/bootstrap(redactor:metadataProvider:_:)``), and a logger passed in is put behind a
/// ``RedactingLogHandler`` unless it already redacts.
public struct LoggingObserver: ErrorObserver {
    /// The logger it writes to (behind redaction).
    package let logger: Logger
    /// That logger's handler, asked for the level in place. `Logger.logLevel` reads its handler through a getter that
    /// returns a copy of the existential, which retains and releases the handler's box: one object that every task
    /// deciding an error shares, so one cache line written from every core, for each decided error, most of which
    /// log nothing. `logger` is a constant, so its handler, and its level, is this one's.
    private let handler: any LogHandler

    /// Logs to `logger`, or by default to the framework's `axiom.errors` logger.
    public init(logger: Logger = .axiom("axiom.errors")) {
        self.logger = logger.redacting()
        self.handler = self.logger.handler
    }

    public func observe(_ event: ErrorEvent, disposition: Disposition) {
        let level = Self.level(event, disposition)
        guard handler.logLevel <= level else { return }
        let target = event.escalatedTo.map { " to \($0)" } ?? ""
        logger.log(
            level: level, "\(event.canonicalCode) \(disposition.rawValue)\(target)",
            metadata: Self.metadata(event, disposition))
    }

    static func level(_ event: ErrorEvent, _ disposition: Disposition) -> Logger.Level {
        switch disposition {
        case .ignore, .escalate: .debug
        case .recover: .info
        case .handle: event.descriptor.severity.loggerLevel
        }
    }

    /// The structured metadata of one outcome.
    package static func metadata(_ event: ErrorEvent, _ disposition: Disposition) -> Logger.Metadata {
        let code = event.canonicalCode
        var metadata: Logger.Metadata = [
            "code": "\(code)",
            "domain": "\(code.domain)",
            "category": "\(event.descriptor.category.rawValue)",
            "layer": "\(event.layer)",
            "disposition": "\(disposition.rawValue)",
            "operation": "\(event.operation)",
            "attempt": "\(event.attempt)",
            "source": "\(event.descriptor.source)",
            "key": "\(event.descriptor.messageKey)",
        ]
        if let target = event.escalatedTo { metadata["escalatedTo"] = "\(target)" }
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
    package var loggerLevel: Logger.Level {
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
