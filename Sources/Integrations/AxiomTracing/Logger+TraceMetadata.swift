#if Tracing
import Logging
import Tracing

extension Logger.MetadataProvider {
    /// Adds `trace-id` and `span-id` to every log line written while a span is active, so a line can be found from
    /// its trace and a trace from its lines. Bootstrap it with the log handler:
    ///
    /// ```swift
    /// LoggingSystem.bootstrap({ label, provider in RedactingLogHandler(...) }, metadataProvider: .axiomTrace)
    /// ```
    ///
    /// The ids are read from `ServiceContext.current` (see ``TraceIdentifiers``); a line outside a span gets none.
    public static let axiomTrace = Logger.MetadataProvider {
        guard let ids = TraceIdentifiers.current else { return [:] }
        return ["trace-id": .string(ids.traceID), "span-id": .string(ids.spanID)]
    }
}
#endif
