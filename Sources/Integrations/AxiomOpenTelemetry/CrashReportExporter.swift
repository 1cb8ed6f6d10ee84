#if OpenTelemetry
import AsyncHTTPClient
import AxiomCore
import AxiomCrash
import Logging
import NIOCore
import NIOHTTP1

/// Sends processed crash reports to a collector's OTLP/HTTP logs endpoint, each as one `FATAL` log record
/// (`CrashReportLogRecord`).
///
/// A report is sent when the next run processes it (`AxiomService` hands each one over before the service reports
/// itself started, and marks it done only after), so there is no batching: each is one `POST` of
/// `application/x-protobuf`. At least once: a run stopped between sending a report and marking it done sends it
/// again at the next start, with the same `log.record.uid`. A refusal the OTLP specification calls transient (429,
/// 502, 503, 504, or no connection) is tried again, at most `maxAttempts` times in all, waiting 1 s, then 2 s;
/// any other refusal throws at once. The report's files stay in the crash directory either way. Given to
/// `AxiomService` as its `exportCrashReport`, ``export(_:)`` keeps a report the collector did not take pending for
/// the next start; ``exportOrLog(_:)`` logs the refusal and lets the report be marked done.
public final class CrashReportExporter: Sendable {
    /// The logs endpoint, `<collector>/v1/logs`.
    package let endpoint: String
    /// `service.name` of the records.
    package let serviceName: String
    /// Further resource attributes.
    package let resource: [String: String]
    /// Headers sent with each request (an API key, say).
    package let headers: [(String, String)]
    /// How long one request may take.
    package let timeout: Duration
    /// Calls in all for one report, the first included.
    package let maxAttempts: Int
    private let logger: Logger

    /// Why a report was not accepted.
    public struct ExportError: Error, CustomStringConvertible {
        /// The collector's status, or nil when no answer came.
        public let status: Int?
        /// What happened.
        public let reason: String

        public var description: String {
            if let status { return "the collector refused the crash report with \(status): \(reason)" }
            return "the crash report could not be sent: \(reason)"
        }
    }

    /// An exporter for `endpoint`.
    package init(
        endpoint: String, serviceName: String, resource: [String: String] = [:], headers: [(String, String)] = [],
        timeout: Duration = .seconds(10), maxAttempts: Int = 3, logger: Logger = .axiom("axiom.opentelemetry")
    ) {
        self.endpoint = endpoint
        self.serviceName = serviceName
        self.resource = resource
        self.headers = headers
        self.timeout = timeout
        self.maxAttempts = max(1, maxAttempts)
        self.logger = logger.redacting()
    }

    /// Sends `report`; throws ``ExportError`` when the collector does not accept it.
    public func export(_ report: ProcessedCrashReport) async throws {
        let body = CrashReportLogRecord(report).exportRequest(serviceName: serviceName, resource: resource)
        var wait = Duration.seconds(1)
        for attempt in 1...maxAttempts {
            let failure: ExportError
            do {
                try await send(body)
                return
            } catch {
                failure = error
            }
            guard attempt < maxAttempts, Self.isTransient(failure) else { throw failure }
            logger.debug(
                "crash report export attempt \(attempt) failed; retrying",
                metadata: ["report": "\(report.jsonPath)", "reason": "\(failure)"])
            try await Task.sleep(for: wait)
            wait *= 2
        }
    }

    /// Sends `report`, and logs at error instead of throwing when the collector does not accept it: the shape
    /// `AxiomService`'s `exportCrashReport` takes.
    @Sendable public func exportOrLog(_ report: ProcessedCrashReport) async {
        do {
            try await export(report)
        } catch {
            logger.error(
                "a crash report was not exported",
                metadata: ["report": "\(report.jsonPath)", "reason": "\(error)", "reportID": "\(report.reportID)"])
        }
    }

    static func isTransient(_ error: ExportError) -> Bool {
        guard let status = error.status else { return true }
        return [429, 502, 503, 504].contains(status)
    }

    private func send(_ body: [UInt8]) async throws(ExportError) {
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-protobuf")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(timeout.wholeNanoseconds))
        } catch {
            throw ExportError(status: nil, reason: "\(error)")
        }
        let answer = (try? await response.body.collect(upTo: 64 * 1024)).map { String(buffer: $0) } ?? ""
        guard (200..<300).contains(Int(response.status.code)) else {
            throw ExportError(status: Int(response.status.code), reason: String(answer.prefix(512)))
        }
    }
}
#endif
