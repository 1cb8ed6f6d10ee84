#if OpenTelemetry
import AxiomCrash

/// A processed crash report as one OTLP log record, encoded as an `ExportLogsServiceRequest`.
///
/// swift-log has no level above `critical`, and swift-otel maps `critical` to OTLP's `ERROR2`; a crash is `FATAL`
/// (severity number 21), so the record is written here rather than through a `Logger`. What it carries:
///
/// | field | value |
/// |---|---|
/// | `severity_number`, `severity_text` | 21, `FATAL` |
/// | `event_name` | `axiom.crash` |
/// | `body` | what went wrong: the runtime's fatal message, or the signal's meaning (`Bad pointer dereference`) |
/// | `time_unix_nano` | when the process crashed |
/// | `trace_id`, `span_id` | the span active on the crashed task, when the report has one |
/// | `exception.type` | the signal (`SIGSEGV`) |
/// | `exception.message` | the body's text |
/// | `exception.stacktrace` | the crashed thread's symbolicated frames, one a line as the text report prints them (function, image, `file:line:column`), at most ``topFrameLimit`` |
/// | `axiom.crash.frames` | the same frames, as an array |
/// | `axiom.crash.modules` | every module the report lists: `{path, build_id}` |
/// | `axiom.crash.fingerprint` | the crash's fingerprint (``AxiomCrash/CrashFingerprint/value``), the same for every report of one bug: what a backend groups by |
/// | `axiom.crash.fingerprint.version` | the version of the algorithm that made it (an integer) |
/// | `axiom.crash.fingerprint.provisional` | true when it was made without debug info: the same report symbolicated later with its debug info has another, final fingerprint (a backend merges the groups by `log.record.uid`) |
/// | `axiom.crash.report` | the report's whole JSON (the file `axiom crash-reports` writes) |
/// | `process.pid`, `thread.id`, `thread.name` | the crashed process and thread |
/// | `log.record.uid` | the report's stable id (``AxiomCrash/ProcessedCrashReport/reportID``): a record sent again for the same report (a run stopped between sending it and marking the report done) has the same one, so the backend can drop the repeat |
///
/// The resource carries `service.name` and the configured resource attributes, as every other signal does.
package struct CrashReportLogRecord: Sendable {
    /// The severity number OTLP gives `FATAL`.
    package static let fatalSeverity: UInt64 = 21
    /// How many of the crashed thread's frames `exception.stacktrace` and `axiom.crash.frames` hold.
    package static let topFrameLimit = 32

    /// The report.
    package let report: ProcessedCrashReport

    /// The record for `report`.
    package init(_ report: ProcessedCrashReport) {
        self.report = report
    }

    /// The crashed thread's frames, at most ``topFrameLimit``, each as the text report prints it.
    package var topFrames: [String] {
        // As the text report prints them, so the record knows what the report knows: file, line and column.
        report.report.frames.prefix(Self.topFrameLimit).map(SymbolicatedCrashReport.line(for:))
    }

    /// The `ExportLogsServiceRequest` holding this one record, for `service.name` = `serviceName` and the
    /// resource attributes `resource`.
    package func exportRequest(serviceName: String, resource: [String: String] = [:]) -> [UInt8] {
        var request = ProtobufWriter()
        // ExportLogsServiceRequest.resource_logs = 1
        request.message(1) { resourceLogs in
            // ResourceLogs.resource = 1
            resourceLogs.message(1) { resourceMessage in
                // Resource.attributes = 1
                resourceMessage.keyValue(1, "service.name", .string(serviceName))
                for (key, value) in resource.sorted(by: { $0.key < $1.key }) where key != "service.name" {
                    resourceMessage.keyValue(1, key, .string(value))
                }
            }
            // ResourceLogs.scope_logs = 2
            resourceLogs.message(2) { scopeLogs in
                // ScopeLogs.scope = 1: InstrumentationScope.name = 1
                scopeLogs.message(1) { scope in scope.string(1, "axiom.crash") }
                // ScopeLogs.log_records = 2
                scopeLogs.message(2) { record in writeRecord(into: &record) }
            }
        }
        return request.bytes
    }

    private func writeRecord(into record: inout ProtobufWriter) {
        let raw = report.report.raw
        let time = UInt64(max(0, raw.timestamp.seconds)) &* 1_000_000_000 &+ UInt64(max(0, raw.timestamp.nanoseconds))
        record.fixed64(1, time)  // time_unix_nano
        record.uint(2, Self.fatalSeverity)  // severity_number
        record.string(3, "FATAL")  // severity_text
        record.message(5) { body in body.anyValue(.string(report.report.summary)) }  // body
        // attributes = 6
        record.keyValue(6, "exception.type", .string(report.report.raw.signalName))
        record.keyValue(6, "exception.message", .string(report.report.summary))
        let frames = topFrames
        record.keyValue(6, "exception.stacktrace", .string(frames.joined(separator: "\n")))
        record.keyValue(6, "axiom.crash.frames", .array(frames.map { .string($0) }))
        record.keyValue(
            6, "axiom.crash.modules",
            .array(
                raw.modules.map { module in
                    .keyValues([("path", .string(module.path)), ("build_id", .string(module.buildIDHex))])
                }))
        let fingerprint = report.report.fingerprint
        record.keyValue(6, "axiom.crash.fingerprint", .string(fingerprint.value))
        record.keyValue(6, "axiom.crash.fingerprint.version", .int(Int64(fingerprint.version)))
        record.keyValue(6, "axiom.crash.fingerprint.provisional", .bool(fingerprint.isProvisional))
        // The release of Axiom whose crash reporter wrote the report (absent from reports written before it was
        // recorded), as the JSON report's `axiomVersion`.
        if let version = raw.axiomVersion { record.keyValue(6, "axiom.version", .string(version)) }
        record.keyValue(6, "axiom.crash.report", .string(report.report.json))
        record.keyValue(6, "process.pid", .int(Int64(raw.pid)))
        record.keyValue(6, "thread.id", .int(Int64(raw.tid)))
        record.keyValue(6, "thread.name", .string(raw.threadName))
        record.keyValue(6, "log.record.uid", .string(report.reportID))
        if let trace = raw.activeTrace {
            record.bytes(9, trace.traceID)  // trace_id
            record.bytes(10, trace.spanID)  // span_id
        }
        record.fixed64(11, time)  // observed_time_unix_nano
        record.string(12, "axiom.crash")  // event_name
    }
}

/// An OTLP `AnyValue`.
enum OTLPValue {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case array([OTLPValue])
    case keyValues([(String, OTLPValue)])
}

extension ProtobufWriter {
    /// A `KeyValue` message in field `field`: `key` = 1, `value` = 2.
    mutating func keyValue(_ field: Int, _ key: String, _ value: OTLPValue) {
        message(field) { pair in
            pair.string(1, key)
            pair.message(2) { $0.anyValue(value) }
        }
    }

    /// The fields of an `AnyValue` (a `oneof`, so even an empty string or a zero is written): string_value = 1, bool_value = 2, int_value = 3, array_value = 5 (`ArrayValue.values` = 1),
    /// kvlist_value = 6 (`KeyValueList.values` = 1).
    mutating func anyValue(_ value: OTLPValue) {
        switch value {
        case .string(let string):
            self.string(1, string, always: true)
        case .bool(let flag):
            uint(2, flag ? 1 : 0, always: true)
        case .int(let integer):
            uint(3, UInt64(bitPattern: integer), always: true)
        case .array(let values):
            message(5) { array in for element in values { array.message(1) { $0.anyValue(element) } } }
        case .keyValues(let pairs):
            message(6) { list in for (key, element) in pairs { list.keyValue(1, key, element) } }
        }
    }
}
#endif
