import Logging

/// A log handler that redacts every message, metadata value and attached error before another handler
/// sees them. Bootstrap it around your real handler and no call site can forget redaction:
///
/// ```swift
/// RedactingLogHandler.bootstrap { label in StructuredLogHandler(label: label) }
/// ```
///
/// The framework's own lines are redacted even without that bootstrap, and even when the object that logs was
/// made before it: each of the framework's loggers looks its backend up at every line.
///
/// The wrapper owns the metadata (logger-level, provider and per-call) and hands the wrapped handler one
/// merged, redacted dictionary, so metadata set on a `Logger` is redacted too. The wrapped handler's own
/// metadata and provider are taken over at creation for the same reason.
public struct RedactingLogHandler: LogHandler {
    /// The handler that receives redacted events.
    package private(set) var wrapped: any LogHandler
    /// What redacts.
    package let redactor: Redactor
    /// Logger-level metadata, redacted when logged.
    public var metadata: Logger.Metadata
    /// Contextual metadata, redacted when logged.
    public var metadataProvider: Logger.MetadataProvider?

    /// The level; it is the wrapped handler's, so both filter alike.
    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    /// Wraps `handler`. Its metadata and metadata provider move into the wrapper.
    public init(
        wrapping handler: any LogHandler, redactor: Redactor = Redactor(),
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        var handler = handler
        self.metadata = handler.metadata
        self.metadataProvider = metadataProvider ?? handler.metadataProvider
        if !handler.metadata.isEmpty { handler.metadata = [:] }
        if handler.metadataProvider != nil { handler.metadataProvider = nil }
        self.wrapped = handler
        self.redactor = redactor
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = Self.merge(metadata, metadataProvider?.get(), event.metadata)
        var redacted = event
        redacted.message = Logger.Message(stringLiteral: redactor.redact(event.message.description))
        redacted.metadata = merged.isEmpty ? nil : redactor.redact(merged)
        if let error = event.error {
            redacted.error = RedactedError(description: redactor.redact(String(describing: error)))
        }
        wrapped.log(event: redacted)
    }

    /// Logger metadata, then provided, then per-call; later wins. When only one is non-empty it is used as it
    /// is: merging into an empty dictionary rehashes every key, and that was most of a clean line's cost.
    static func merge(
        _ handler: Logger.Metadata, _ provided: Logger.Metadata?, _ call: Logger.Metadata?
    ) -> Logger.Metadata {
        let provided = provided ?? [:]
        let call = call ?? [:]
        switch (handler.isEmpty, provided.isEmpty, call.isEmpty) {
        case (true, true, _): return call
        case (true, _, true): return provided
        case (_, true, true): return handler
        default:
            var merged = handler
            merged.merge(provided) { _, new in new }
            merged.merge(call) { _, new in new }
            return merged
        }
    }

    /// Bootstraps logging so that every logger's handler is `makeHandler(label)` behind redaction: the loggers
    /// swift-log makes from now on, and the framework's own loggers whenever they were made.
    ///
    /// The wrapper evaluates `metadataProvider` itself, so provided metadata is redacted too.
    ///
    /// It may be called more than once: a later call replaces the backend for every logger that came from
    /// swift-log after the first call and for every framework logger (each looks its backend up per line).
    /// swift-log's own `LoggingSystem.bootstrap` traps on a second call, so it is called once, with a factory that
    /// reads the latest configuration. Do not also call
    /// `LoggingSystem.bootstrap` yourself: that would be its second call.
    public static func bootstrap(
        redactor: Redactor = Redactor(), metadataProvider: Logger.MetadataProvider? = nil,
        _ makeHandler: @escaping @Sendable (String) -> any LogHandler
    ) {
        LoggingBackend.configure(redactor: redactor, metadataProvider: metadataProvider, makeHandler)
    }
}

/// An error attached to a log event, reduced to its redacted description: the original value may hold
/// secrets in fields that a downstream handler would print.
package struct RedactedError: Error, Sendable, CustomStringConvertible {
    /// The redacted `String(describing:)` of the original error.
    package let description: String
}
