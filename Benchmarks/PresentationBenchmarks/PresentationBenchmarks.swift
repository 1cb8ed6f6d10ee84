import Axiom
import Benchmark
import Logging

// The cost of redaction per log line: the same structured error line written through the structured
// handler alone (the baseline) and behind the redacting handler, for a line without secrets (the common
// case) and for one carrying an invoice, a bearer token and an email address. Lines go to a sink that drops
// them, so the figures are formatting and redaction, not I/O.

/// Drops every line; keeps the optimizer from dropping the formatting.
struct NullSink: LogLineSink {
    func write(_ line: String) { blackHole(line) }
}

/// The metadata `LoggingObserver` writes for one handled error.
let cleanMetadata: Logger.Metadata = [
    "code": "nwc/PAYMENT_FAILED", "domain": "nwc", "category": "api", "layer": "client", "disposition": "default",
    "operation": "pay", "attempt": "2", "source": "io.axiom.nwc", "key": "error.nwc.PAYMENT_FAILED",
    "error": "nwc/PAYMENT_FAILED: no route found to the destination after 3 attempts",
]

let secretMetadata: Logger.Metadata = {
    var metadata = cleanMetadata
    metadata["error"] =
        "nwc/PAYMENT_FAILED: paying lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp failed"
    metadata["request"] = "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
    metadata["user"] = "jane.doe@example.com"
    return metadata
}()

/// Accepts and drops events: what remains is the cost of the logger and of whatever wraps this handler.
struct DroppingHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { blackHole(event) }
}

func logger(redacting: Bool) -> Logger {
    Logger(label: "bench") { label in
        let structured = StructuredLogHandler(label: label, sink: NullSink())
        return redacting ? RedactingLogHandler(wrapping: structured) : structured
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], scalingFactor: .kilo,
        maxDuration: .seconds(3), maxIterations: 10_000)

    for (name, metadata) in [("clean line", cleanMetadata), ("line with secrets", secretMetadata)] {
        Benchmark("Structured log, no redaction (baseline), \(name)") { benchmark in
            let log = logger(redacting: false)
            for _ in benchmark.scaledIterations {
                log.error("nwc/PAYMENT_FAILED handled", metadata: metadata)
            }
        }
        Benchmark("Structured log, redacted, \(name)") { benchmark in
            let log = logger(redacting: true)
            for _ in benchmark.scaledIterations {
                log.error("nwc/PAYMENT_FAILED handled", metadata: metadata)
            }
        }
    }

    for (name, metadata) in [("clean line", cleanMetadata), ("line with secrets", secretMetadata)] {
        Benchmark("Dropping handler, no redaction (floor), \(name)") { benchmark in
            let log = Logger(label: "bench") { _ in DroppingHandler() }
            for _ in benchmark.scaledIterations {
                log.error("nwc/PAYMENT_FAILED handled", metadata: metadata)
            }
        }
        Benchmark("Dropping handler behind redaction, \(name)") { benchmark in
            let log = Logger(label: "bench") { _ in RedactingLogHandler(wrapping: DroppingHandler()) }
            for _ in benchmark.scaledIterations {
                log.error("nwc/PAYMENT_FAILED handled", metadata: metadata)
            }
        }
    }

    let redactor = Redactor()
    let clean = "nwc/PAYMENT_FAILED: no route found to the destination after 3 attempts; layer=client op=pay"
    let dirty = secretMetadata["error"]!.description
    Benchmark("Redactor alone, clean text (\(clean.utf8.count) bytes)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(redactor.redact(clean)) }
    }
    Benchmark("Redactor alone, text with an invoice (\(dirty.utf8.count) bytes)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(redactor.redact(dirty)) }
    }
}
