#if Hummingbird && OpenTelemetry
import AsyncHTTPClient
import Axiom
import AxiomPlugins
import AxiomTesting
import Foundation
import Hummingbird
import InMemoryTracing
import NIOCore
import NIOHTTP1
import Tracing

/// The one in-memory tracer of the test process (`AxiomTesting`'s, which the gRPC tests share: the instrument is
/// bootstrapped once per process), so every test that traces finds its own spans by a name of its own.
enum SharedTracer {
    static var tracer: InMemoryTracer { SharedInMemoryTracer.tracer }

    /// The finished spans named `name`.
    static func finished(_ name: String) -> [FinishedInMemorySpan] {
        tracer.finishedSpans.filter { $0.operationName == name }
    }
}

extension SpanAttributes {
    /// A string attribute's value.
    func string(_ key: String) -> String? {
        if case .string(let value)? = get(key) { return value }
        return nil
    }

    /// An integer attribute's value.
    func integer(_ key: String) -> Int64? {
        switch get(key) {
        case .int64(let value)?: value
        case .int32(let value)?: Int64(value)
        default: nil
        }
    }
}

/// A registry with the shipped plugins (built beside the test binary) and a small shop catalog of its own.
func makeServiceRegistry() throws -> ErrorRegistry {
    let registry = ErrorRegistry()
    let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    let report = PluginHost(registry: registry).load(PluginSearch(executableDirectory: directory))
    guard report.loaded.contains(where: { $0.domains.contains("nwc") }) else {
        throw TestFailure("the shipped NWC plugin did not load: \(report.rejected)")
    }
    let texts: [String: [String: String]] = [
        "en": [
            "error.shop.INVALID_QUANTITY": "The quantity must be between 1 and 99.",
            "error.shop.INVALID_QUANTITY.title": "Check the quantity",
            "error.shop.NOT_SIGNED_IN": "Sign in to see your orders.",
            "error.shop.NOT_SIGNED_IN.title": "Sign-in required",
            "error.shop.CARD_DECLINED": "The card was declined.",
            "error.shop.CARD_DECLINED.title": "Payment declined",
        ],
        "tr": [
            "error.shop.INVALID_QUANTITY": "Adet 1 ile 99 arasında olmalı.",
            "error.shop.INVALID_QUANTITY.title": "Adedi kontrol edin",
        ],
    ]
    try registry.register(
        ErrorCatalog(
            source: "test.shop", domains: ["shop"],
            descriptors: [
                ErrorDescriptor(
                    code: ErrorCode("shop", "INVALID_QUANTITY"), category: .validation, severity: .warning,
                    messageKey: "error.shop.INVALID_QUANTITY", httpStatus: 422),
                ErrorDescriptor(
                    code: ErrorCode("shop", "NOT_SIGNED_IN"), category: .auth, severity: .warning,
                    messageKey: "error.shop.NOT_SIGNED_IN"),
                ErrorDescriptor(
                    code: ErrorCode("shop", "CARD_DECLINED"), category: .credit, severity: .warning,
                    messageKey: "error.shop.CARD_DECLINED", isSensitive: true),
            ],
            messages: texts))
    return registry
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a real Hummingbird server for `router` on a free loopback port while `body` runs, then stops it.
func withServer<Result: Sendable>(
    _ router: Router<BasicRequestContext>, _ body: @Sendable (Int) async throws -> Result
) async throws -> Result {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw TestFailure("the server did not start") }
        defer { group.cancelAll() }
        return try await body(port)
    }
}

/// What a request to the test server answered.
struct Answer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: String

    /// The body as JSON.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(body)")
        }
        return object
    }
}

/// GET `path` (or another method's request, without a body) on the loopback server with AsyncHTTPClient, bounded to
/// 10 seconds.
func get(
    _ port: Int, _ path: String, headers: [(String, String)] = [], method: NIOHTTP1.HTTPMethod = .GET
) async throws -> Answer {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let buffer = try await response.body.collect(upTo: 1 << 20)
    var fields: [String: String] = [:]
    for header in response.headers { fields[header.name.lowercased()] = header.value }
    return Answer(status: Int(response.status.code), headers: fields, body: String(buffer: buffer))
}

/// The first line a child process writes to `pipe`, without its newline (the line a test waits for to know the
/// child is listening).
func firstLine(of pipe: Pipe) throws -> String {
    var line = Data()
    while let byte = try pipe.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
        line.append(first)
    }
    return String(decoding: line, as: UTF8.self)
}
#endif
