// An example service: a Hummingbird server that uses the framework as a service would.
//
//   swift run AxiomExampleService [--port 8080] [--collector http://127.0.0.1:4318] [--crash-directory DIR]
//
// - POST /invoices/:id/pay pays an invoice through a wallet client whose calls run through the resilience chain
//   (total timeout, retry, breaker, per-attempt timeout); the wallet here answers from the invoice's name:
//   `limited-…` is NWC RATE_LIMITED, `poor-…` INSUFFICIENT_BALANCE, `flaky-…` fails once then pays.
// - GET /payment-methods lists the payment methods of three sources; a source that fails is skipped as the
//   payment-methods plugin says, and only an empty list (`?empty=1` makes every source fail) is an error.
// - POST /crash crashes a child process (this executable, `--crash-child`) inside the request's trace, processes
//   the report it left, exports it when a collector is configured, and answers with its summary.
//
// Every error a route throws is answered with RFC 9457 problem details. With --collector, logs (redacted),
// metrics, traces and crash reports go to that OTLP/HTTP collector. It stops gracefully on SIGTERM or SIGINT.
#if Hummingbird && OpenTelemetry
import Axiom
import AxiomCrash
import AxiomHummingbird
import AxiomOpenTelemetry
import AxiomPlugins
import AxiomService
import AxiomTracing
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// The command line: `--name value` pairs, and the child mode.
struct Options {
    var port = 8080
    var collector: String?
    var crashDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-example-crashes").path
    var crashChild: (directory: String, traceparent: String)?

    init(_ arguments: [String]) throws {
        var index = 1
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--port":
                guard let port = Int(try value()), (0...65535).contains(port) else { throw UsageError("bad --port") }
                self.port = port
            case "--collector": collector = try value()
            case "--crash-directory": crashDirectory = try value()
            case "--crash-child": crashChild = (try value(), try value())
            case let other: throw UsageError("unknown option \(other)")
            }
            index += 1
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The wallet the pay route calls: an NWC wallet in a real service. Here it answers from the invoice's name.
actor Wallet {
    private var failedOnce: Set<String> = []

    func pay(_ invoice: String) throws -> String {
        if invoice.hasPrefix("limited") {
            throw DomainError(domain: "nwc", code: "RATE_LIMITED", message: "the wallet is rate limiting")
        }
        if invoice.hasPrefix("poor") {
            throw DomainError(domain: "nwc", code: "INSUFFICIENT_BALANCE", message: "balance 120 sat")
        }
        if invoice.hasPrefix("flaky"), failedOnce.insert(invoice).inserted {
            throw DomainError(domain: "nwc", code: "INTERNAL", message: "the wallet restarted")
        }
        return "preimage-"
            + String(invoice.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 }, radix: 16)
    }
}

/// The child of POST /crash: announces the request's trace, then crashes.
func crashChild(directory: String, traceparent: String) async -> Never {
    do {
        try CrashReporter.install(directory: directory)
    } catch {
        FileHandle.standardError.write(Data("crash child: \(error)\n".utf8))
        exit(3)
    }
    let ids = TraceIdentifiers.fromTraceparent(traceparent)
    let trace = ids?.traceIDBytes ?? []
    let span = ids?.spanIDBytes ?? []
    // The announcement is this task's: the crash must happen in it (a `Task {}` would be another task).
    await FlightRecorder.withActiveTrace(traceID: trace, spanID: span) {
        try? await Task.sleep(for: .milliseconds(1))  // resumed on a pool thread, wherever that is
        settleLedger(nil)
    }
    exit(4)  // not reached: settleLedger crashes
}

@inline(never)
func settleLedger(_ account: Int?) {
    print("settling account \(account!)")  // force-unwraps nil: the crash the report shows
}

let options: Options
do {
    options = try Options(CommandLine.arguments)
} catch {
    FileHandle.standardError.write(Data("AxiomExampleService: \(error)\n".utf8))
    exit(2)
}
if let child = options.crashChild { await crashChild(directory: child.directory, traceparent: child.traceparent) }

// Telemetry first, so every logger made from here on exports: to the collector when one is given, else to
// standard error. Either way through the redactor, with the active span's ids in each line.
let telemetry: OpenTelemetryExport?
if let collector = options.collector {
    telemetry = try OpenTelemetryExport.bootstrap(.init(collector: collector, serviceName: "axiom-example"))
} else {
    telemetry = nil
    RedactingLogHandler.bootstrap(metadataProvider: .axiomTrace) { label in StreamLogHandler.standardError(label: label)
    }
}
let logger = Logger(label: "axiom.example")

// The shipped plugins (NWC, payment methods, …) are beside this executable.
let executableDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().path
let axiom = AxiomService(
    configuration: .init(
        crashDirectory: options.crashDirectory, plugins: .standard(),
        exportCrashReport: telemetry?.crashReports.exportOrLog),
    logger: logger)

// Every error a route throws is decided here: an event on the request's span, logged and counted, then
// answered with problem details.
let observers = ErrorObserverSystem.observers + [TracingErrorObserver()]
let configuration = PipelineConfiguration(observers: observers, instrument: TracingInstrument())
let requests = ErrorPipeline(layer: Layer("request"), escalatesTo: nil, configuration: configuration) {
    FollowDescriptor()
}

// The wallet's calls: limiter → total timeout → retry → breaker → per-attempt timeout. An interactive request
// does not wait out a long Retry-After: a wait over 5 s is not retried here, and the client gets 429 with
// Retry-After instead.
let wallet = Wallet()
let resilience = ResilienceTelemetry(pipeline: "wallet", onEvent: ResilienceSpanEvents().record)
let breaker = try CircuitBreaker(key: "wallet")
let payments = OperationRunner(
    chain: OperationChain {
        TimeoutStage(.seconds(20), telemetry: resilience)
        RetryStage(
            configuration: .init(
                registry: .shared, shouldRetry: { ($0.policy?.delay(forRetry: $0.attempt) ?? .zero) <= .seconds(5) },
                telemetry: resilience)
        )
        CircuitBreakerStage(breaker, telemetry: resilience)
        AttemptTimeoutStage(.seconds(5), telemetry: resilience)
    },
    pipeline: ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) {})

/// The payment-methods sources: a failing one is skipped as its descriptor says (`ignore`).
let sources = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) { FollowDescriptor() }
func paymentMethods(empty: Bool) async throws -> [String] {
    let fetchers: [(String, @Sendable () async throws -> [String])] = [
        ("wallet", { throw DomainError(domain: "payment-methods", code: empty ? "noWalletFound" : "inReview") }),
        ("cards", { empty ? [] : ["visa •••• 4242"] }),
        ("payment service", { throw DomainError(domain: "payment-methods", code: "serviceNotAvailable") }),
    ]
    var methods: [String] = []
    for (name, fetch) in fetchers {
        methods += try await sources.run("fetch \(name)") { try await fetch() }.value ?? []
    }
    guard !methods.isEmpty else { throw DomainError(domain: "payment-methods", code: "noPaymentMethodsFound") }
    return methods
}

/// What POST /crash answers.
struct CrashSummary: ResponseEncodable {
    var signal: String
    var description: String
    var crashedIn: String?
    var traceId: String?
    var report: String
    var exported: Bool
}

let router = Router()
router.add(middleware: TracingMiddleware())  // Hummingbird's, outside: they see the final status
router.add(middleware: MetricsMiddleware())
router.add(middleware: ProblemDetailsMiddleware(pipeline: requests))
router.post("invoices/:id/pay") { _, context -> [String: String] in
    let invoice = try context.parameters.require("id")
    let outcome = try await payments.run("payInvoice") { try await wallet.pay(invoice) }
    return ["invoice": invoice, "preimage": outcome.value ?? ""]
}
router.get("payment-methods") { request, _ -> [String] in
    try await paymentMethods(empty: request.uri.queryParameters.get("empty") == "1")
}
router.post("crash") { _, _ -> CrashSummary in
    let directory = options.crashDirectory + "/children"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let ids = TraceIdentifiers.current
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = [
        "--crash-child", directory, ids.map { "00-\($0.traceID)-\($0.spanID)-01" } ?? "none",
    ]
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    child.waitUntilExit()
    let outcomes = try CrashReportProcessor(directory: directory).processPendingReports()
    guard
        let processed = outcomes.lazy.compactMap({ outcome -> ProcessedCrashReport? in
            if case .processed(let processed) = outcome { return processed }
            return nil
        }).first
    else {
        throw DomainError(domain: "axiom.crash", code: "reportUnreadable", message: "the child left no report")
    }
    var exported = false
    if let telemetry {
        try await telemetry.crashReports.export(processed)
        exported = true
    }
    return CrashSummary(
        signal: processed.report.signalName, description: processed.report.summary,
        crashedIn: processed.report.frames.first { $0.function?.contains("settleLedger") == true }?.description,
        traceId: processed.report.traceID, report: processed.jsonPath, exported: exported)
}

// Started before the server listens: the plugins' domains (NWC's RATE_LIMITED among them) are registered before the
// first request, and earlier runs' crash reports are exported. The group's run of `axiom` waits for this start.
_ = try await axiom.start()
var services: [any Service] = []
if let telemetry { services.append(telemetry) }
services.append(axiom)
let server = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: options.port)),
    onServerRunning: { channel in
        // The tests and the README read this line for the port (with --port 0, the system picks one).
        FileHandle.standardOutput.write(Data("listening on 127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
    }, logger: logger)
services.append(server)
let group = ServiceGroup(
    configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
#else
// Built without the traits it needs (a plain `swift build`): say how to get the service instead of failing the build.
import Foundation

FileHandle.standardError.write(
    Data(
        """
        AxiomExampleService needs the Hummingbird and OpenTelemetry traits:
        swift run --traits Hummingbird,OpenTelemetry AxiomExampleService

        """.utf8))
exit(64)
#endif
