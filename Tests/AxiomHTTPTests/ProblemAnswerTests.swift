#if HTTP
import Axiom
import AxiomHTTP
import AxiomShopFixture
import Foundation
import HTTPTypes
import Testing

func json(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite("Answering with problem details")
struct ProblemAnswerTests {
    @Test(
        "the body is what JSONEncoder writes with sorted keys and unescaped slashes, byte for byte",
        arguments: [
            ProblemDetails(
                type: "https://shop.example/problems/shop/RATE_LIMITED", title: "Yavaşlayın", status: 429,
                detail: "Çok fazla istek.", instance: "/pay", code: "shop/RATE_LIMITED",
                traceId: "4bf92f3577b34da6a3ce929d0e0e4736"),
            ProblemDetails(
                type: "about:blank", title: "quote \" backslash \\ slash / tab \t newline \n cr \r", status: 500,
                detail: "controls \u{0} \u{1} \u{8} \u{c} \u{1f} \u{7f} emoji 🧾 line sep \u{2028}",
                instance: "/a b?c=d&e",
                code: "axiom/unknownError"),
        ])
    func bodyIsJSONEncodersBytes(problem: ProblemDetails) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(problem.json == Array(try encoder.encode(problem)))
        #expect(try JSONDecoder().decode(ProblemDetails.self, from: Data(problem.json)) == problem)
    }

    @Test("a status's code is axiom.http/<status> for every status, the kept ones (100 to 599) and the others")
    func statusCodes() {
        for status in [Int.min, -1, 0, 99, 100, 101, 404, 429, 500, 599, 600, 999, 1000, 123_456, Int.max] {
            let code = HTTPErrorDomain.code(status: status)
            #expect(code == ErrorCode("axiom.http", String(status)))
            #expect(code.description == "axiom.http/\(status)")
        }
        #expect(Set((100..<600).map { HTTPErrorDomain.code(status: $0).code }).count == 500)
    }

    @Test("the status, title and detail come from the descriptor; the error's message never reaches the body")
    func statusFromTheDescriptor() throws {
        let responder = ProblemResponder(
            registry: try shopRegistry(), configuration: .init(typeBase: "https://shop.example/problems/"))
        let answer = responder.answer(
            DomainError(domain: "shop", code: "INVALID_QUANTITY", message: "quantity=0"), acceptLanguage: nil,
            instance: "/cart", traceId: "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(answer.response.status.code == 422)
        #expect(answer.response.headerFields[.contentType] == "application/problem+json")
        #expect(answer.response.headerFields[.vary] == "Accept-Language")
        #expect(answer.response.headerFields[.contentLanguage] == "en")
        #expect(answer.response.headerFields[.retryAfter] == nil)
        #expect(answer.code == ErrorCode("shop", "INVALID_QUANTITY"))
        let body = try json(answer.body)
        #expect(body["type"] as? String == "https://shop.example/problems/shop/INVALID_QUANTITY")
        #expect(body["title"] as? String == "Check the quantity")
        #expect(body["detail"] as? String == "The quantity must be between 1 and 99.")
        #expect(body["status"] as? Int == 422)
        #expect(body["instance"] as? String == "/cart")
        #expect(body["code"] as? String == "shop/INVALID_QUANTITY")
        #expect(body["traceId"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("quantity=0"))
    }

    @Test("an override wins over the descriptor's status, and a category names the status of a code without one")
    func overridesAndCategories() throws {
        let registry = try shopRegistry()
        let overridden = ProblemResponder(
            registry: registry, configuration: .init(overrides: [ErrorCode("shop", "INVALID_QUANTITY"): 400]))
        let error = DomainError(domain: "shop", code: "INVALID_QUANTITY")
        #expect(overridden.answer(error, acceptLanguage: nil, instance: "/").response.status.code == 400)
        let ledger = DomainError(domain: "shop", code: "LEDGER_DOWN")
        #expect(
            ProblemResponder(registry: registry).answer(ledger, acceptLanguage: nil, instance: "/").problem.status
                == 500)
    }

    @Test("the language comes from Accept-Language with its qualities, English when none is offered")
    func languages() throws {
        let responder = ProblemResponder(registry: try shopRegistry())
        let error = DomainError(domain: "shop", code: "INVALID_QUANTITY")
        let turkish = responder.answer(error, acceptLanguage: "de;q=0.9, tr-TR, en;q=0.5", instance: "/")
        #expect(turkish.response.headerFields[.contentLanguage] == "tr")
        #expect(turkish.problem.title == "Miktarı kontrol edin")
        #expect(turkish.response.headerFields[.vary] == "Accept-Language")
        let german = responder.answer(error, acceptLanguage: "de", instance: "/")
        #expect(german.response.headerFields[.contentLanguage] == "en")
        #expect(german.problem.title == "Check the quantity")
    }

    @Test("every answer's body is its problem's JSON, whatever the path and trace of the request it answers")
    func bodyIsTheProblemsJSON() throws {
        let responder = ProblemResponder(
            registry: try shopRegistry(), configuration: ProblemDetailsConfiguration(typeBase: "https://shop.example/"))
        let error = DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds(5))
        for (instance, traceId) in [
            ("/pay", nil), ("/pay", "4bf92f3577b34da6a3ce929d0e0e4736"), (#"/a "b"\c"#, "trace\n"),
            ("/ünï/\u{1}", nil), ("", ""),
        ] as [(String, String?)] {
            for language in [nil, "tr"] {
                let answer = responder.answer(error, acceptLanguage: language, instance: instance, traceId: traceId)
                #expect(answer.body == Data(answer.problem.json))
                #expect(answer.problem.instance == instance)
                #expect(answer.problem.traceId == traceId)
                #expect(answer.response.headerFields[.retryAfter] == "5")
                #expect(try json(answer.body)["instance"] as? String == instance)
            }
        }
    }

    @Test("a server's head carries its body's Content-Length, for every size of body, past the sizes kept too")
    func contentLengthOfEachSize() throws {
        let registry = try shopRegistry()
        let responder = ProblemResponder(registry: registry)
        let (identity, descriptor) = registry.resolve(DomainError(domain: "shop", code: "RATE_LIMITED"))
        for round in 0..<2 {
            for length in 0..<40 {
                let parts = responder.parts(
                    identity: identity, descriptor: descriptor, acceptLanguage: nil,
                    instance: "/" + String(repeating: "a", count: length), traceId: nil, ownStatus: nil)
                let head = parts.response(contentLength: parts.bodyCount)
                #expect(head.headerFields[.contentLength] == String(parts.bodyCount), "round \(round), \(length)")
                #expect(head.headerFields[values: .contentLength].count == 1)
                #expect(head.status == parts.response.status)
                // Every other field is the answer's own, which has no Content-Length of its own.
                #expect(parts.response.headerFields[.contentLength] == nil)
                var others = head.headerFields
                others[.contentLength] = nil
                #expect(others == parts.response.headerFields)
            }
        }
    }

    @Test("answers given at once, from many tasks, each carry their own body's Content-Length")
    func contentLengthFromManyTasks() async throws {
        let registry = try shopRegistry()
        let responder = ProblemResponder(registry: registry)
        let (identity, descriptor) = registry.resolve(DomainError(domain: "shop", code: "RATE_LIMITED"))
        // More sizes than are kept, so that tasks race both to keep a size and past a slot another size holds.
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<200 {
                        let length = (round * 7 + task) % 80
                        let parts = responder.parts(
                            identity: identity, descriptor: descriptor, acceptLanguage: nil,
                            instance: "/" + String(repeating: "b", count: length), traceId: nil, ownStatus: nil)
                        let head = parts.response(contentLength: parts.bodyCount)
                        if head.headerFields[values: .contentLength] != [String(parts.bodyCount)] { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    /// More keys (code, language, status and wait) than the responder keeps in its slots read without a lock, so
    /// that keys share slots and tasks race to fill them: every answer is the one a responder that kept nothing gives.
    @Test("answers for many codes, languages and waits given at once each carry their own texts")
    func manyKeysFromManyTasks() async throws {
        let registry = try shopRegistry()
        var errors: [any Error & Sendable] = ["RATE_LIMITED", "INVALID_QUANTITY", "LEDGER_DOWN", "SOLD_OUT"].map {
            DomainError(domain: "shop", code: $0)
        }
        errors += (1...12).map { DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds($0)) }
        errors.append(DatabaseDown())
        let cases = errors.flatMap { error in [nil, "tr", "de", "tr;q=0.5, en"].map { (error, $0) } }
        #expect(cases.count == 68)  // four times the 16 slots, and more
        // What a responder that kept nothing answers, case by case.
        let expected = cases.map { error, language in
            let answer = ProblemResponder(registry: registry).answer(error, acceptLanguage: language, instance: "/")
            return Answer(response: answer.response, body: answer.body)
        }
        #expect(expected[1].response.headerFields[.contentLanguage] == "tr")
        // 13 waits of the rate limit, three more codes and an unregistered error, in English and Turkish.
        #expect(Set(expected).count == 34)

        let responder = ProblemResponder(registry: registry)
        let wrong = await casesAnsweredWrongly(among: cases.count) { index in
            let (error, language) = cases[index]
            let answer = responder.answer(error, acceptLanguage: language, instance: "/")
            return Answer(response: answer.response, body: answer.body) == expected[index]
        }
        #expect(wrong.isEmpty, "cases answered wrongly: \(wrong)")
    }

    /// More `Accept-Language` headers than the responder keeps the choices of, as browsers and other clients send
    /// them, asked for at once: each answer is in the language a responder that kept nothing chooses.
    @Test("answers for many Accept-Language headers given at once are each in the header's language")
    func manyLanguageHeadersFromManyTasks() async throws {
        let registry = try shopRegistry()
        let error = DomainError(domain: "shop", code: "INVALID_QUANTITY")
        let ranges = ["tr", "tr-TR", "en", "en-US", "de-DE", "fr", "*"]
        let headers =
            ranges.flatMap { first in ranges.map { "\(first),\($0);q=0.9" } }
            + ["tr;q=0", "TR", "de, tr;q=0.5, en;q=0.4", "", " ", "e n", String(repeating: "tr,", count: 200)]
        #expect(headers.count > 32)
        let expected = headers.map {
            ProblemResponder(registry: registry).answer(error, acceptLanguage: $0, instance: "/").body
        }
        #expect(Set(expected).count == 2)  // Turkish and English

        let responder = ProblemResponder(registry: registry)
        let wrong = await casesAnsweredWrongly(among: headers.count) { index in
            responder.answer(error, acceptLanguage: headers[index], instance: "/").body == expected[index]
        }
        #expect(wrong.isEmpty, "headers answered wrongly: \(wrong.map { headers[$0] })")
    }

    /// The cases (indices below `count`) that `isRight` refused, asked from 8 tasks at once, 300 times each, so
    /// that tasks race for the responder's slots: every task asks every case when `count` is at most 300 and not a
    /// multiple of 5.
    func casesAnsweredWrongly(among count: Int, _ isRight: @escaping @Sendable (Int) -> Bool) async -> [Int] {
        let wrong = await withTaskGroup(of: [Int].self) { group in
            for task in 0..<8 {
                group.addTask { (0..<300).map { round in (round * 5 + task * 13) % count }.filter { !isRight($0) } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        return Set(wrong).sorted()
    }

    /// An answer's head and body, compared whole.
    struct Answer: Hashable {
        var response: HTTPResponse
        var body: Data
    }

    @Test("a responder answers with the texts of the catalogs registered now, not of those it first answered with")
    func textsFollowRegistrations() throws {
        let registry = ErrorRegistry()
        let responder = ProblemResponder(registry: registry)
        let error = DomainError(domain: "shop", code: "INVALID_QUANTITY")
        let before = responder.answer(error, acceptLanguage: "tr", instance: "/")
        #expect(before.problem.code == "axiom/unknownError")
        #expect(responder.answer(error, acceptLanguage: "tr", instance: "/").problem.title == before.problem.title)

        let revision = registry.revision
        try registry.register(shop.catalog)
        #expect(registry.revision > revision)
        let after = responder.answer(error, acceptLanguage: "tr", instance: "/")
        #expect(after.problem.code == "shop/INVALID_QUANTITY")
        #expect(after.problem.title == "Miktarı kontrol edin")
        #expect(after.response.status.code == 422)

        // Asked for German before a catalog has German texts: English, and again after the same header was read.
        for _ in 0..<2 {
            let english = responder.answer(error, acceptLanguage: "de", instance: "/")
            #expect(english.response.headerFields[.contentLanguage] == "en")
        }
        try registry.register(
            ErrorCatalog(
                source: "test.german", domains: [], descriptors: [],
                messages: ["de": ["error.shop.INVALID_QUANTITY": "Die Menge muss zwischen 1 und 99 liegen."]]))
        let german = responder.answer(error, acceptLanguage: "de", instance: "/")
        #expect(german.problem.detail == "Die Menge muss zwischen 1 und 99 liegen.")
        #expect(german.response.headerFields[.contentLanguage] == "de")
        #expect(german.problem.title == "Check the quantity")
    }

    @Test("Retry-After: the error's own, rounded up and capped by the policy, else the policy's first wait for a 429")
    func retryAfter() throws {
        let responder = ProblemResponder(registry: try shopRegistry())
        let policy = DomainError(domain: "shop", code: "RATE_LIMITED")
        #expect(responder.answer(policy, acceptLanguage: nil, instance: "/").response.headerFields[.retryAfter] == "30")
        let own = DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .milliseconds(6500))
        #expect(responder.answer(own, acceptLanguage: nil, instance: "/").response.headerFields[.retryAfter] == "7")
        let long = DomainError(domain: "shop", code: "RATE_LIMITED", retryAfter: .seconds(86_400))
        #expect(responder.answer(long, acceptLanguage: nil, instance: "/").response.headerFields[.retryAfter] == "300")
    }

    @Test("a 5xx says only the generic text, in the client's language, whatever the code")
    func genericServerError() throws {
        let responder = ProblemResponder(registry: try shopRegistry())
        let answer = responder.answer(
            DomainError(domain: "shop", code: "LEDGER_DOWN"), acceptLanguage: "tr", instance: "/pay")
        #expect(answer.response.status.code == 500)
        #expect(answer.problem.code == "shop/LEDGER_DOWN")
        #expect(answer.response.headerFields[.contentLanguage] == "tr")
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(!text.contains(ledgerHost))
        #expect(!text.contains("Defter"))
        #expect(
            answer.problem.detail
                == Localizer(registry: responder.registry, locale: "tr").text(forKey: Localizer.unexpectedKey)?.text)
    }

    @Test("an unregistered error is axiom/unknownError, type about:blank, a 500; its own code is only for the log")
    func unknownError() throws {
        let responder = ProblemResponder(registry: try shopRegistry())
        let answer = responder.answer(DatabaseDown(), acceptLanguage: nil, instance: "/")
        #expect(answer.response.status.code == 500)
        #expect(answer.problem.code == "axiom/unknownError")
        #expect(answer.problem.type == "about:blank")
        #expect(answer.code != ErrorCatalog.unknownCode)
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("hunter2"))
        let thrownWith = responder.answer(DatabaseDown(), acceptLanguage: nil, instance: "/", ownStatus: 404)
        #expect(thrownWith.response.status.code == 404)
        #expect(
            responder.answer(DatabaseDown(), acceptLanguage: nil, instance: "/", ownStatus: 200).problem.status == 500)
    }

    /// An error thrown out of a continuation (as from SwiftNIO's `EventLoopFuture.get()`, which Vapor's async
    /// middleware awaits) arrives as an `any Error` boxed in another; it is answered as the error it carries.
    @Test("an error thrown out of a continuation is answered as the error it carries")
    func errorFromAContinuation() async throws {
        let registry = try shopRegistry()
        var caught: (any Error)?
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                continuation.resume(throwing: DomainError(domain: "shop", code: "INVALID_QUANTITY"))
            }
        } catch {
            caught = error
        }
        let thrown = try #require(caught)
        let responder = ProblemResponder(registry: registry)
        #expect(responder.answer(thrown, acceptLanguage: nil, instance: "/").problem.code == "shop/INVALID_QUANTITY")
        let pipeline = ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil, configuration: PipelineConfiguration(registry: registry)
        ) { FollowDescriptor() }
        let decided = responder.answer(
            deciding: thrown, through: pipeline, operation: "GET /", acceptLanguage: "tr", instance: "/",
            traceId: nil, ownStatus: nil
        ) { _ in nil }
        if case .problem(let answer, escalated: nil) = decided {
            #expect(answer.response.status.code == 422)
            #expect(answer.problem.title == "Miktarı kontrol edin")
        } else {
            Issue.record("not a problem answer: \(decided)")
        }
    }
}
#else
import Testing

/// AxiomHTTP's sources are inside `#if HTTP`: without the trait this suite says so instead of passing by running
/// nothing.
@Test(.disabled("needs the HTTP trait (the Hummingbird trait turns it on): swift test --enable-all-traits"))
func httpTestsNeedTheirTrait() {}
#endif
