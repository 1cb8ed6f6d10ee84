import Axiom
import AxiomTesting
import Testing

/// The fate has one type, ``Disposition``. The handler's decision, what observers receive and the outcomes of
/// `run` and `decide` each carry it in their own role, and each names it as the same `Disposition`.
@Suite("One fate across its roles")
struct FateRolesTests {
    /// Decides the same for every error.
    struct Always: ErrorHandler {
        let decision: ErrorDecision
        func decide(_ event: ErrorEvent) -> ErrorDecision { decision }
    }

    static func decision(carrying fate: Disposition) -> ErrorDecision {
        switch fate {
        case .ignore: .ignore
        case .recover: .recover(.fallback(7))
        case .escalate: .escalate(translatedTo: nil)
        case .handle: .handle
        }
    }

    @Test(
        "a handler's decision reaches run's outcome, decide's outcome and the observers as the same fate",
        arguments: Disposition.allCases)
    func oneFate(_ fate: Disposition) async throws {
        let harness = try Harness()
        let decision = Self.decision(carrying: fate)
        #expect(decision.disposition == fate)
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Always(decision: decision)
        }
        if fate == .escalate {
            await #expect(throws: EscalatedError.self) {
                try await pipeline.run("buy") { () throws -> Int in throw ShopError.broken }
            }
            #expect(throws: EscalatedError.self) { try pipeline.decide(ShopError.broken, operation: "buy") }
            #expect(harness.recorder.dispositions == [.escalate, .escalate])
        } else {
            let ran = try await pipeline.run("buy") { () throws -> Int in throw ShopError.broken }
            let decided = try pipeline.decide(ShopError.broken, operation: "buy")
            #expect(ran.disposition == fate)
            #expect(decided.disposition == fate)
            #expect(ran.disposition == decided.disposition)
            #expect(ran.value == (fate == .recover ? 7 : nil))
            #expect(decided.value as? Int == (fate == .recover ? 7 : nil))
            #expect(ran.event?.code == ShopError.broken.errorCode && decided.event?.code == ShopError.broken.errorCode)
        }
        #expect(harness.recorder.dispositions == [fate, fate])
    }

    @Test("what carries no fate says so: a pass, and an operation that succeeded")
    func noFate() async throws {
        let harness = try Harness()
        #expect(ErrorDecision.pass.disposition == nil)
        let pipeline = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: harness.configuration) {
            Always(decision: .pass)
        }
        let succeeded = try await pipeline.run("buy") { 3 }
        #expect(succeeded.disposition == nil && succeeded.value == 3)
        #expect(harness.recorder.dispositions.isEmpty)
    }
}
