import Axiom
import Foundation
import MetricsTestKit
import Testing

@testable import Axiom
@testable import AxiomCore

/// What a remote peer controls: error bodies. Nothing it sends may trap the process, lose the error's identity
/// or grow memory without bound.
@Suite("Hostile input")
struct HostileInputTests {
    private func decode(_ text: String) throws(DomainError.DecodingFailure) -> DomainError {
        try DomainError.decode(domain: "nwc", json: Data(text.utf8))
    }

    @Test(
        "a Retry-After too large for any clock is cut to a day, and the error keeps its code",
        arguments: ["9.3e15", "1e308", "18446744073709551616", "86401"])
    func hugeRetryAfter(_ seconds: String) throws {
        let error = try decode(#"{"error":{"code":"RATE_LIMITED","retry_after":\#(seconds)}}"#)
        #expect(error.errorCode == ErrorCode("nwc", "RATE_LIMITED"))
        #expect(error.retryAfter == DomainError.maximumRetryAfter)
        #expect(error.metadata[DomainError.invalidRetryAfterKey] == nil)
    }

    @Test("a negative or non-numeric Retry-After is dropped with its reason; the error keeps its code")
    func invalidRetryAfter() throws {
        let negative = try decode(#"{"error":{"code":"RATE_LIMITED","retry_after":-1e16}}"#)
        #expect(negative.errorCode.code == "RATE_LIMITED")
        #expect(negative.retryAfter == nil)
        #expect(negative.metadata[DomainError.invalidRetryAfterKey] == "negative")
        let boolean = try decode(#"{"error":{"code":"RATE_LIMITED","retry_after":true}}"#)
        #expect(boolean.retryAfter == nil)
        #expect(boolean.metadata[DomainError.invalidRetryAfterKey] == "not a number")
        let text = try decode(#"{"error":{"code":"RATE_LIMITED","retry_after":"1.5"}}"#)
        #expect(text.retryAfter == .milliseconds(1500))
        let nan = try decode(#"{"error":{"code":"RATE_LIMITED","retry_after":"nan"}}"#)
        #expect(nan.retryAfter == nil)
        #expect(nan.metadata[DomainError.invalidRetryAfterKey] == "not finite")
    }

    @Test(
        "a body that is not an error response is refused with a reason, never a trap",
        arguments: [
            (#"{"error":{"code":18446744073709551616}}"#, "no string or integer `code`"),
            (#"{"error":{"code":1e308}}"#, "no string or integer `code`"),
            (#"{"error":{"code":true}}"#, "no string or integer `code`"),
            (#"{"error":{"code":""}}"#, "empty `code`"),
            (#"{"error":{"code":"A\nlevel=critical fake line"}}"#, "`code` holds control characters"),
            (#"{"error":{"code":"\#(String(repeating: "X", count: 129))"}}"#, "`code` longer than 128 bytes"),
            (#"[1,2,3]"#, "not a JSON object"),
            (#"{"error":"#, "invalid JSON"),
        ])
    func refused(_ body: String, _ reason: String) {
        #expect(throws: DomainError.DecodingFailure.self) { try decode(body) }
        do {
            _ = try decode(body)
        } catch {
            #expect(error.reason == reason)
            #expect(!error.description.contains("fake line"), "the payload is never echoed")
        }
    }

    @Test("invalid UTF-8, nesting 100,000 deep and a payload over 1 MiB are refused")
    func malformedPayloads() {
        var invalid = Data(#"{"error":{"code":""#.utf8)
        invalid.append(contentsOf: [0xFF, 0xFE, 0xC3])
        invalid.append(contentsOf: Data(#""}}"#.utf8))
        let nested = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        let huge = Data((#"{"error":{"code":"X","message":""# + String(repeating: "a", count: 1 << 20) + "\"}}").utf8)
        for payload in [invalid, nested, huge] {
            #expect(throws: DomainError.DecodingFailure.self) { try DomainError.decode(domain: "x", json: payload) }
        }
    }

    @Test("20,000 mutated error bodies decode or are refused; none traps")
    func mutatedBodies() {
        var generator = SplitMix64(seed: 0xA710_4E55)
        let seeds = [
            #"{"error":{"code":"RATE_LIMITED","message":"slow down","retry_after":60}}"#,
            #"{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"no route"}}"#,
            #"{"result_type":"pay_invoice","error":{"code":"INSUFFICIENT_BALANCE","message":"x"}}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]",:0123456789.eE+-truefalsnl\ "#.utf8) + [0, 0x80, 0xFF]
        var decoded = 0
        for _ in 0..<20_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &generator)]
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
                default: if bytes.count > 1 { bytes.remove(at: index) }
                }
            }
            if let error = try? DomainError.decode(domain: "fuzz", json: Data(bytes)) {
                decoded += 1
                #expect(!error.errorCode.code.isEmpty)
                if let wait = error.retryAfter { #expect(wait >= .zero && wait <= DomainError.maximumRetryAfter) }
            }
        }
        #expect(decoded > 0, "the mutations leave some bodies valid")
    }

    @Test(
        "100,000 distinct codes from peers (20,000 under a sanitizer) leave the registry's and the metrics observer's tables bounded"
    )
    func peerCodesStayBounded() async throws {
        // The large catalogs' tests keep what they register: they wait while this one measures.
        try await MemoryHeavyTests.turn.acquire()
        defer { MemoryHeavyTests.turn.release() }
        let registry = ErrorRegistry()
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics)
        let configuration = PipelineConfiguration(registry: registry, observers: [observer])
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: nil, configuration: configuration) { Ignore(.any) }
        // Under a sanitizer, whose every memory access costs several times more, 20,000 codes: still 78 times what
        // the registry remembers of misses.
        let count = Sanitizers.any ? 20_000 : 100_000
        let residentBefore = try residentBytes()
        var generator = SplitMix64(seed: 100_000)
        for index in 0..<count {
            // Short codes are stored inline, which made every one of them a key of the fast tables before.
            let code = "C\(index)" + String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 36)
            let body = Data(#"{"error":{"code":"\#(code)","message":"x"}}"#.utf8)
            let error = try DomainError.decode(domain: "peer", json: body)
            #expect(registry.descriptor(for: error.errorCode) == nil)
            _ = try pipeline.decide(error, operation: "call")
        }
        let residentAfter = try residentBytes()

        let table = registry.fastTableCounts
        // Built with AXIOM_PORTABLE_LAYOUT no code is a fast-table key, so no miss is remembered there either.
        #expect(table.misses == (LayoutFastPaths.enabled ? ErrorRegistry.rememberedMissLimit : 0))
        #expect(table.entries <= ErrorRegistry.rememberedMissLimit + 64)
        #expect(observer.seriesCount == 1)
        let series = try #require(metrics.counters.first { $0.label == MetricsObserver.label })
        #expect(series.dimensions.contains { $0 == ("code", MetricsObserver.unregisteredCode) })
        #expect(series.dimensions.contains { $0 == ("domain", "peer") })
        #expect(series.totalValue == Int64(count))
        // Tests run in parallel in this process, so this bound is loose: the other tests' memory counts too (the
        // plugin mutation test, which reads and maps thousands of files, added 150 MB in one CI run that overlapped
        // it, and more under ThreadSanitizer, where every byte touched brings its shadow). What it guards is the
        // growth of before: 5,000 codes took 1.8 GB, so 100,000 would take tens of GB. Under AddressSanitizer freed
        // memory waits in its quarantine (256 MB), so resident memory says nothing there.
        if !Sanitizers.address {
            let bound = 256 << 20
            #expect(
                residentAfter - residentBefore < bound, "resident memory grew by \(residentAfter - residentBefore)")
        }
    }

    @Test("a registration forgets remembered misses, so a code registered later is found")
    func missesAreForgottenOnRegistration() throws {
        let registry = ErrorRegistry()
        let code = ErrorCode("late", "ARRIVED")
        for index in 0..<(ErrorRegistry.rememberedMissLimit + 10) {
            _ = registry.descriptor(for: ErrorCode("late", "M\(index)"))
        }
        #expect(registry.descriptor(for: code) == nil)
        try registry.register(
            ErrorCatalog(source: "late", domains: ["late"], descriptors: [ErrorDescriptor(code: code, category: .api)]))
        #expect(registry.descriptor(for: code)?.code == code)
        #expect(registry.fastTableCounts.misses == 0)
        for index in 0..<10 { _ = registry.descriptor(for: ErrorCode("late", "N\(index)")) }
        #expect(registry.fastTableCounts.misses == (LayoutFastPaths.enabled ? 10 : 0))
    }

    @Test("series past the observer's lock-free table are still counted, through its locked map")
    func seriesPastTheFastTableAreCounted() throws {
        let registry = ErrorRegistry()
        let codes = (0..<6).map { ErrorCode("full", "C\($0)") }
        try registry.register(
            ErrorCatalog(
                source: "full", domains: ["full"],
                descriptors: codes.map { ErrorDescriptor(code: $0, category: .api, disposition: .ignore) }))
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics, fastSeriesLimit: 2)
        let configuration = PipelineConfiguration(registry: registry, observers: [observer])
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: nil, configuration: configuration) { Ignore(.any) }
        for _ in 0..<3 {
            for code in codes {
                _ = try pipeline.decide(DomainError(domain: code.domain, code: code.code), operation: "x")
            }
        }
        for code in codes {
            let counter = try metrics.expectCounter(
                MetricsObserver.label,
                [("domain", "full"), ("code", code.code), ("disposition", "ignore"), ("layer", "client")])
            #expect(counter.totalValue == 3, "\(code)")
        }
    }

    @Test("unregistered codes of more than 64 domains count under the domain `other`")
    func unregisteredDomainsAreBounded() throws {
        let registry = ErrorRegistry()
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics)
        let configuration = PipelineConfiguration(registry: registry, observers: [observer])
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: nil, configuration: configuration) { Ignore(.any) }
        for index in 0..<200 { _ = try pipeline.decide(DomainError(domain: "d\(index)", code: "X"), operation: "x") }
        #expect(observer.seriesCount == MetricsObserver.maximumUnregisteredDomains + 1)
        let other = try metrics.expectCounter(
            MetricsObserver.label,
            [
                ("domain", MetricsObserver.otherDomain), ("code", MetricsObserver.unregisteredCode),
                ("disposition", "ignore"), ("layer", "client"),
            ])
        #expect(other.totalValue == Int64(200 - MetricsObserver.maximumUnregisteredDomains))
    }

    private func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let pages = try #require(statm.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
