#if Benchmarks
import Axiom
import Benchmark
import Logging

// The cost of redaction per log line: the same structured error line written through the structured
// handler alone (the baseline) and behind the redacting handler, for a line without secrets (the common
// case) and for one carrying an invoice, a bearer token and an email address. Lines go to a sink that drops
// them, so the figures are formatting and redaction, not I/O.

/// Drops every line; keeps the optimizer from dropping the formatting.
@Sendable func nullSink(_ line: String) { blackHole(line) }

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
        let structured = StructuredLogHandler(label: label, sink: nullSink)
        return redacting ? RedactingLogHandler(wrapping: structured) : structured
    }
}

/// The same rules as regular expressions, applied one after another: the comparison the hand-written scanner
/// is meant to beat. An approximation for measuring, not a second implementation to ship.
struct RegexRedactor: @unchecked Sendable {
    // @unchecked: `Regex` is not Sendable on this toolchain; the values are built once, never mutated, and
    // each benchmark closure uses them from one task at a time.
    let rules: [(Regex<AnyRegexOutput>, (Regex<AnyRegexOutput>.Match) -> String)]

    init() {
        func rule(
            _ pattern: String, _ replace: @escaping (Regex<AnyRegexOutput>.Match) -> String
        ) -> (
            Regex<AnyRegexOutput>, (Regex<AnyRegexOutput>.Match) -> String
        ) {
            (try! Regex(pattern), replace)
        }
        func group(_ match: Regex<AnyRegexOutput>.Match, _ index: Int) -> String {
            match.output[index].substring.map(String.init) ?? ""
        }
        rules = [
            rule(#"(?i)(nostr\+?walletconnect:(?://)?)[^\s"'<>`]+"#) { group($0, 1) + "[REDACTED]" },
            rule(#"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@?#]+@"#) { group($0, 1) + "[REDACTED]@" },
            rule(#"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"#) { _ in "[REDACTED]" },
            // Anchored at a word start with at most one prefix word (`db_password`, `x-api-key`): a leading
            // `[…]*` backtracks quadratically over long words such as invoices.
            rule(
                #"(?i)\b((?:[A-Za-z0-9]+[_-]){0,2}(?:password|passwd|pass|pwd|secret|token|api[_-]?key|apikey|authorization|credential|private[_-]?key|access[_-]?key|cookie)["']?\s*[:=]\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"'&]+"#
            ) { group($0, 1) + "[REDACTED]" },
            rule(#"(?i)\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]{8,}=*"#) { group($0, 1) + " [REDACTED]" },
            rule(#"\b(sk_live_|sk_test_|sk-|ghp_|AKIA|AIza|xoxb-|KEY)[A-Za-z0-9_\-]{16,}"#) {
                group($0, 1) + "[REDACTED]"
            },
            rule(#"\beyJ[A-Za-z0-9_\-.]{16,}"#) { _ in "[REDACTED]" },
            rule(#"\b([0-9a-fA-F]{16})[0-9a-fA-F]{48,}"#) { group($0, 1) + "[REDACTED]" },
            rule(#"(?i)\b(ln(?:bc|tb|sb)[0-9a-z]{12})[0-9a-z]{4,}"#) { group($0, 1) + "[REDACTED]" },
        ]
    }

    func redact(_ text: String) -> String {
        var text = text
        for (regex, replace) in rules { text = text.replacing(regex, with: replace) }
        return text
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
    let regexes = RegexRedactor()
    Benchmark("Regex comparison, clean text (\(clean.utf8.count) bytes)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(regexes.redact(clean)) }
    }
    Benchmark("Regex comparison, text with an invoice (\(dirty.utf8.count) bytes)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(regexes.redact(dirty)) }
    }
}

// The entry point the benchmark package's build plugin would generate; without the trait, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner { static func main() { fatalError("needs the Benchmarks trait (--traits Benchmarks)") } }
#endif
