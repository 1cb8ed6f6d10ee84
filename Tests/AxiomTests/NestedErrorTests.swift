import Axiom
import AxiomTesting
import Testing

/// An error as a continuation hands it back: `CheckedContinuation<_, any Error>.resume(throwing:)` (and so SwiftNIO's
/// `EventLoopFuture.get()`, which every Vapor async middleware awaits) can box the `any Error` it was given in
/// another.
func thrownThroughAContinuation(_ error: any Error) async -> any Error {
    do {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            continuation.resume(throwing: error)
        }
    } catch {
        return error
    }
    preconditionFailure("the continuation resumed without an error")
}

/// A value of several words whose identity is read through its witnesses: a reader given the bytes of a box
/// instead would read garbage.
struct Declined: IdentifiableError, Equatable {
    var card: String
    var amount: Int
    var errorCode: ErrorCode { ErrorCode("shop", "DECLINED") }
}

@Suite("Errors boxed by a continuation")
struct NestedErrorTests {
    @Test(
        "an error thrown out of a continuation is identified, described and decided as the error it carries",
        arguments: [
            ShopError.busy as any Error, Declined(card: "4111", amount: 12), DomainError(domain: "shop", code: "SOLD"),
        ])
    func identifiedAsItself(error: any Error) async throws {
        let harness = try Harness()
        let expected = harness.registry.identity(of: error).code
        let thrown = await thrownThroughAContinuation(error)
        #expect(harness.registry.identity(of: thrown).code == expected)
        #expect(harness.registry.resolve(thrown).identity.code == expected)
        #expect(harness.registry.descriptor(for: thrown).code == harness.registry.descriptor(for: error).code)
        // A second sight (the value cache) says the same.
        #expect(harness.registry.resolve(thrown).identity.code == expected)
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: nil, configuration: harness.configuration) {
            FollowDescriptor()
        }
        let outcome = try? pipeline.decide(thrown, operation: "pay")
        #expect(outcome?.event?.code == expected)
        #expect(outcome?.event?.identity.code == expected)
        // Thrown out of a continuation inside `run`, as an HTTP client's or a SwiftNIO future's error is (handled at
        // once: a retry would wait on the harness's manual clock).
        let handling = ErrorPipeline(layer: .client, escalatesTo: nil, configuration: harness.configuration) {
            Handle()
        }
        let ran = try await handling.run("pay") { () async throws -> Int in
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                continuation.resume(throwing: error)
            }
        }
        #expect(ran.event?.code == expected)
    }

    @Test("the boxed error is still itself to a cast")
    func castsSeeThrough() async {
        let thrown = await thrownThroughAContinuation(Declined(card: "4111", amount: 12))
        #expect(thrown as? Declined == Declined(card: "4111", amount: 12))
    }
}
