#if HTTPClient
import AsyncHTTPClient
import Axiom
@_exported import AxiomHTTP
import AxiomTracing
import Foundation
import Instrumentation
import NIOCore
import NIOHTTP1
import Tracing

extension HTTPClient {
    /// Executes `request` and reads an error answer back as the peer's error, so that a caller decides, retries
    /// and traces it by the peer's identity, whatever HTTP server answered.
    ///
    /// ```swift
    /// let reader = ProblemReader(registry: registry)
    /// let chain = OperationChain { RetryStage(configuration: .init(registry: registry), clock: clock) }
    /// let response = try await chain.run("GET /rates") {
    ///     try await HTTPClient.shared.execute(request, timeout: .seconds(5), reading: reader)
    /// }
    /// ```
    ///
    /// ```
    ///   status < 400 ──────────────────────────────▶ the response, its body unread
    ///   status ≥ 400, application/problem+json ──▶ throws the peer's error: its `code`, `detail`, trace id and
    ///                                             Retry-After (``ProblemReader/read(_:body:now:)``)
    ///   status ≥ 400, anything else ─────────────▶ throws axiom.http/<status>, with its Retry-After
    ///   problem details it cannot read ──────────▶ throws UnreadableAnswer (axiom.http.peer)
    /// ```
    ///
    /// The error thrown for an answer is a `DomainError` with the peer's code: a code the registry knows is decided
    /// with its registered fate and retry policy, and `RetryStage` waits its `Retry-After` (capped by the policy as
    /// any wait is); a code it does not know is counted within the registry's bounds for unknown codes, however many
    /// distinct codes a peer sends. The error's metadata holds the status, the peer's `title`, `type`, `instance` and
    /// `traceId`.
    ///
    /// The request carries the task's trace context (W3C `traceparent` with swift-otel): the client injects it when
    /// it has a tracer (and then makes a CLIENT span for the call); when it has none, this method injects the
    /// context through the bootstrapped instrument, so a peer continues the caller's trace either way. The span
    /// active around the call records the peer's code and trace id (`axiom.peer.code`, `axiom.peer.trace_id`).
    ///
    /// - Parameters:
    ///   - timeout: as `execute(_:timeout:)`'s, for the head; reading a problem body is bounded by
    ///     64 KiB.
    ///   - reader: reads the peer's answers, and looks their codes up in its registry.
    ///   - now: the time an HTTP-date `Retry-After` is measured from.
    public func execute(
        _ request: HTTPClientRequest, timeout: TimeAmount, reading reader: ProblemReader, now: Date = Date()
    ) async throws -> HTTPClientResponse {
        var request = request
        if tracer == nil || tracer is NoOpTracer, let context = ServiceContext.current {
            InstrumentationSystem.instrument.inject(context, into: &request.headers, using: TraceContextInjector())
        }
        let response = try await execute(request, timeout: timeout)
        let head = HTTPResponse(
            status: .init(code: Int(response.status.code)), headerFields: Self.fields(response.headers))
        guard head.status.code >= 400 else { return response }
        var body = Data()
        if ProblemReader.isProblemMediaType(head.headerFields[.contentType]) {
            do {
                body = Data(try await response.body.collect(upTo: ProblemReader.maximumBodySize).readableBytesView)
            } catch is NIOTooManyBytesError {
                throw UnreadableAnswer(.unreadableProblem, reason: "larger than 64 KiB", status: head.status.code)
            }
        }
        guard let peer = try reader.peerProblem(in: head, body: body, now: now) else { return response }
        TracingInstrument.recordPeerError(code: peer.code, traceId: peer.traceId)
        throw peer.error
    }

    /// `headers` as swift-http-types fields; a field whose name or value is not valid there is left out.
    static func fields(_ headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
    }
}

/// Writes a trace context's fields into request headers, replacing any of the same name.
struct TraceContextInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
#endif
