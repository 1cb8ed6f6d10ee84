#if HTTP
import Axiom
import AxiomHTTP
import AxiomShopFixture
import Foundation
import HTTPTypes
import Testing

@testable import AxiomCore

/// The time every HTTP-date `Retry-After` is measured from: Sun, 06 Nov 1994 08:49:37 GMT.
let now = Date(timeIntervalSince1970: 784_111_777)

func problemResponse(_ status: Int, _ fields: HTTPFields = [:]) -> HTTPResponse {
    var all: HTTPFields = [.contentType: "application/problem+json"]
    all.append(contentsOf: fields)
    return HTTPResponse(status: .init(code: status), headerFields: all)
}

@Suite("Reading a peer's answer back")
struct ProblemReaderTests {
    @Test("an answer read back has the identity, the wait and the trace id it was sent with")
    func roundTrip() throws {
        let registry = try shopRegistry()
        let sent = ProblemResponder(registry: registry).answer(
            DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds(12)), acceptLanguage: "tr",
            instance: "/pay", traceId: "4bf92f3577b34da6a3ce929d0e0e4736")
        let peer = try ProblemReader(registry: registry).read(sent.response, body: sent.body, now: now)
        #expect(peer.code == sent.code)
        #expect(peer.status == 429)
        #expect(peer.retryAfter == .seconds(12))
        #expect(peer.error.retryAfter == .seconds(12))
        #expect(peer.traceId == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(peer.title == "Yavaşlayın")
        #expect(peer.descriptor?.code == ErrorCode("shop", "RATE_LIMITED"))
        // Decided here, the peer's error is the registered code with its registered fate.
        let (identity, descriptor) = registry.resolve(peer.error)
        #expect(identity.code == ErrorCode("shop", "RATE_LIMITED"))
        #expect(identity.retryAfter == .seconds(12))
        #expect(descriptor.disposition == .recover)
    }

    @Test("a client's view: a success is no error, problem details are the peer's, any other error answer its status")
    func peerProblemOfAnyAnswer() throws {
        let registry = try shopRegistry()
        let reader = ProblemReader(registry: registry)
        let problemBody = Data(#"{"code":"shop/RATE_LIMITED","status":429}"#.utf8)
        // A success, even with a problem body, is no error.
        #expect(try reader.peerProblem(in: problemResponse(200), body: problemBody, now: now) == nil)
        // Problem details are read as `read` reads them.
        let peer = try #require(
            try reader.peerProblem(in: problemResponse(429, [.retryAfter: "3"]), body: problemBody, now: now))
        #expect(peer.code == ErrorCode("shop", "RATE_LIMITED"))
        #expect(peer.retryAfter == .seconds(3))
        // A proxy's page is its status, with its wait; the page itself is never read.
        let html = HTTPResponse(
            status: .init(code: 503),
            headerFields: [.contentType: "text/html", .retryAfter: "Sun, 06 Nov 1994 08:49:47 GMT"])
        let proxy = try #require(try reader.peerProblem(in: html, body: Data("<h1>down</h1>".utf8), now: now))
        #expect(proxy.code == ErrorCode("axiom.http", "503"))
        #expect(proxy.retryAfter == .seconds(10))
        #expect(proxy.error.message.isEmpty)
        #expect(proxy.descriptor?.category == .capability)
        // A wait that cannot be read is said in the error's metadata, not thrown.
        let bad = HTTPResponse(status: .init(code: 502), headerFields: [.retryAfter: "soon"])
        let gateway = try #require(try reader.peerProblem(in: bad, body: Data(), now: now))
        #expect(gateway.retryAfter == nil)
        #expect(gateway.error.metadata[DomainError.invalidRetryAfterKey] != nil)
        // Problem details that cannot be read are refused as `read` refuses them.
        #expect(throws: UnreadableAnswer.self) {
            try reader.peerProblem(in: problemResponse(500), body: Data("[1,2".utf8), now: now)
        }
    }

    @Test("a code the local registry does not know is a DomainError with the peer's code and texts as data")
    func unknownPeerCode() throws {
        let reader = ProblemReader(registry: ErrorRegistry())
        let body = Data(
            #"{"code":"billing/CARD_EXPIRED","title":"Card expired","detail":"Use another card.","status":402,"type":"about:blank","instance":"/pay"}"#
                .utf8)
        let peer = try reader.read(problemResponse(402), body: body, now: now)
        #expect(peer.code == ErrorCode("billing", "CARD_EXPIRED"))
        #expect(peer.descriptor == nil)
        #expect(peer.error.message == "Use another card.")
        #expect(peer.error.metadata["title"] == "Card expired")
        #expect(peer.error.metadata["instance"] == "/pay")
        #expect(peer.error.metadata["status"] == "402")
        #expect(peer.traceId == nil)
        #expect(reader.registry.descriptor(for: peer.error).code == ErrorCatalog.unknownCode)
    }

    @Test("problem details without a code are identified by their status, axiom.http/<status>")
    func noCode() throws {
        let peer = try ProblemReader(registry: ErrorRegistry()).read(
            problemResponse(404), body: Data(#"{"title":"Not Found","status":404}"#.utf8), now: now)
        #expect(peer.code == ErrorCode("axiom.http", "404"))
    }

    @Test(
        "Retry-After as delta-seconds or any HTTP-date form, measured from the injected time, at most a day",
        arguments: [
            ("120", Duration.seconds(120)),
            (" 5 ", .seconds(5)),
            ("99999999999999999999", .seconds(86_400)),
            ("Sun, 06 Nov 1994 08:50:37 GMT", .seconds(60)),
            ("Sunday, 06-Nov-94 08:51:37 GMT", .seconds(120)),
            ("Sun Nov  6 08:49:47 1994", .seconds(10)),
            ("Sat, 05 Nov 1994 08:49:37 GMT", .zero),
            ("Mon, 07 Nov 1994 08:49:38 GMT", .seconds(86_400)),
            // 29 February of a leap year, and of a year divisible by 400, is a date (more than a day ahead).
            ("Thu, 29 Feb 1996 08:49:37 GMT", .seconds(86_400)),
            ("Tue, 29 Feb 2000 08:49:37 GMT", .seconds(86_400)),
        ])
    func retryAfterForms(field: String, wait: Duration) throws {
        let peer = try ProblemReader(registry: ErrorRegistry()).read(
            problemResponse(503, [.retryAfter: field]), body: Data(#"{"code":"x/Y"}"#.utf8), now: now)
        #expect(peer.retryAfter == wait)
    }

    @Test(
        "an invalid Retry-After is dropped with its reason; the error keeps its code",
        arguments: [
            "-1", "soon", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT", "1.5",
            // Days a month does not have: 31 February and 31 April, 29 February outside a leap year (a century
            // not divisible by 400 is none).
            "Tue, 31 Feb 1995 08:49:37 GMT", "Sun, 31 Apr 1995 08:49:37 GMT", "Wed, 29 Feb 1995 08:49:37 GMT",
            "Mon, 29 Feb 2100 08:49:37 GMT", "Sun Feb 31 08:49:37 1995", "Tuesday, 31-Feb-95 08:49:37 GMT",
            String(repeating: "9", count: 100),
        ])
    func invalidRetryAfter(field: String) throws {
        let peer = try ProblemReader(registry: ErrorRegistry()).read(
            problemResponse(503, [.retryAfter: field]), body: Data(#"{"code":"x/Y"}"#.utf8), now: now)
        #expect(peer.retryAfter == nil)
        #expect(peer.code == ErrorCode("x", "Y"))
        #expect(peer.error.metadata[DomainError.invalidRetryAfterKey] != nil)
    }

    @Test("a trace id that is not a short run of letters, digits, - and _ is left out")
    func hostileTraceId() throws {
        let reader = ProblemReader(registry: ErrorRegistry())
        for traceId in ["a\\nb", String(repeating: "a", count: 65), "", "é"] {
            let body = try JSONSerialization.data(withJSONObject: ["code": "x/Y", "traceId": traceId])
            #expect(try reader.read(problemResponse(500), body: body, now: now).traceId == nil)
        }
    }
}

/// Bodies no reader should read, by what is wrong with them.
let unreadableBodies: [String: Data] = [
    "huge": Data((#"{"code":"x/Y","detail":""# + String(repeating: "a", count: 64 << 10) + "\"}").utf8),
    "deep": Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8),
    "deep member": Data(
        (#"{"code":"x/Y","a":"# + String(repeating: "{\"a\":", count: 17) + "1" + String(repeating: "}", count: 18))
            .utf8),
    "truncated": Data(#"{"code":"x/Y","title":"Card exp"#.utf8),
    "empty": Data(),
    "array": Data(#"[{"code":"x/Y"}]"#.utf8),
    "invalid UTF-8": Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]),
    "numeric code": Data(#"{"code":42}"#.utf8),
    "code without domain": Data(#"{"code":"RATE_LIMITED"}"#.utf8),
    "empty domain": Data(#"{"code":"/RATE_LIMITED"}"#.utf8),
    "control characters": Data(#"{"code":"x/Y\nfake line"}"#.utf8),
    "long code": Data(#"{"code":"x/\#(String(repeating: "C", count: 129))"}"#.utf8),
    "title a number": Data(#"{"code":"x/Y","title":7}"#.utf8),
    "detail an object": Data(#"{"code":"x/Y","detail":{"a":1}}"#.utf8),
    "status a string": Data(#"{"code":"x/Y","status":"429"}"#.utf8),
    "status a boolean": Data(#"{"code":"x/Y","status":true}"#.utf8),
    "traceId a number": Data(#"{"code":"x/Y","traceId":12}"#.utf8),
]

@Suite("Hostile answers from peers")
struct HostileAnswerTests {
    let reader = ProblemReader(registry: ErrorRegistry())

    func refusal(_ response: HTTPResponse, _ body: Data) -> UnreadableAnswer? {
        do {
            _ = try reader.read(response, body: body, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test("not problem details: another content type, a success status with a problem body, a redirect")
    func notProblemDetails() {
        let body = Data(#"{"code":"x/Y","status":400}"#.utf8)
        let cases = [
            HTTPResponse(status: .badRequest, headerFields: [.contentType: "text/html"]),
            HTTPResponse(status: .badRequest, headerFields: [.contentType: "application/json"]),
            HTTPResponse(status: .badRequest),
            problemResponse(200),
            problemResponse(302),
        ]
        for response in cases {
            let refusal = refusal(response, body)
            #expect(refusal?.code == .notProblemDetails, "\(response)")
            #expect(refusal?.errorCode == ErrorCode("axiom.http.peer", "notProblemDetails"))
            #expect(refusal?.status == response.status.code)
        }
        // Parameters and case do not matter.
        let charset = HTTPResponse(
            status: .badRequest, headerFields: [.contentType: "Application/Problem+JSON; charset=utf-8"])
        #expect(refusal(charset, body) == nil)
    }

    @Test(
        "unreadable problem details: huge, deeply nested, truncated, not an object, wrong member types, bad codes",
        arguments: unreadableBodies.keys.sorted())
    func unreadable(name: String) throws {
        let body = try #require(unreadableBodies[name])
        let refusal = refusal(problemResponse(502), body)
        #expect(refusal?.code == .unreadableProblem, "\(name)")
        #expect(refusal?.errorCode == ErrorCode("axiom.http.peer", "unreadableProblem"))
        #expect(refusal.map { !$0.description.contains("fake line") } ?? true, "the body is never echoed")
    }

    @Test("the framework's own refusals are registered, with their fate and texts")
    func refusalsAreRegistered() {
        let samples = [UnreadableAnswer.Code.notProblemDetails, .unreadableProblem].map {
            UnreadableAnswer($0, reason: "r", status: 200)
        }
        #expect(UnreadableAnswer.builtinDomain.problems(samples: samples, in: reader.registry).isEmpty)
        #expect(reader.registry.descriptor(for: samples[0]).category == .api)
    }

    @Test("20,000 mutated answers are read or refused; none traps")
    func mutatedAnswers() {
        var generator = SplitMix64(seed: 0x4854_5450)
        let seeds = [
            #"{"code":"shop/RATE_LIMITED","title":"Slow down","detail":"x","status":429,"traceId":"abc"}"#,
            #"{"type":"about:blank","title":"Not Found","status":404,"instance":"/a/b"}"#,
            #"{"code":"axiom/unknownError","detail":"Something went wrong.","status":500}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]",:/0123456789.eE+-truefalsnl\ "#.utf8) + [0, 0x80, 0xFF]
        var read = 0
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
            if let peer = try? reader.read(problemResponse(503), body: Data(bytes), now: now) {
                read += 1
                #expect(!peer.code.domain.isEmpty && !peer.code.code.isEmpty)
            }
        }
        #expect(read > 0, "the mutations leave some answers readable")
    }

    @Test("10,000 distinct codes from peers leave the registry's tables bounded")
    func peerCodesStayBounded() throws {
        let registry = ErrorRegistry()
        let reader = ProblemReader(registry: registry)
        let pipeline = ErrorPipeline(
            layer: .client, escalatesTo: nil, configuration: PipelineConfiguration(registry: registry)
        ) { Ignore(.any) }
        var generator = SplitMix64(seed: 10_000)
        for index in 0..<10_000 {
            let code = "C\(index)" + String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 36)
            let body = Data(#"{"code":"peer/\#(code)","detail":"x"}"#.utf8)
            let peer = try reader.read(problemResponse(409), body: body, now: now)
            #expect(peer.descriptor == nil)
            _ = try pipeline.decide(peer.error, operation: "call")
        }
        let table = registry.fastTableCounts
        #expect(table.misses <= ErrorRegistry.rememberedMissLimit)
        #expect(table.entries <= ErrorRegistry.rememberedMissLimit + 64)
    }
}
#endif
