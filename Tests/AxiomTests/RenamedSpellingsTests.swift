import Axiom
import AxiomTesting
import Testing

/// Code written against the first README's spellings compiles (with deprecation warnings, silenced here by marking
/// the tests deprecated) and behaves as the new spellings do.
@Suite("The first README's spellings")
struct RenamedSpellingsTests {
    @available(*, deprecated)
    @Test("Disposition.default is handle, and a catalog's \"default\" reads as handle")
    func dispositionDefault() {
        #expect(Disposition.default == .handle)
        #expect(Disposition(rawValue: "default") == .handle)
        let disposition: Disposition = .handle
        switch disposition {
        case .default: break
        default: Issue.record("Disposition.default did not match handle")
        }
    }

    @available(*, deprecated)
    @Test("ErrorPipeline.handle(_:operation:) decides as decide(_:operation:) does")
    func pipelineHandle() throws {
        let harness = try Harness()
        let pipeline = ErrorPipeline(
            layer: .context, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: harness.registry, observers: [])
        ) {
            Default(.code(ShopError.busy.errorCode))
        }
        let outcome = try pipeline.handle(ShopError.busy, operation: "restock")
        let decided = try pipeline.decide(ShopError.busy, operation: "restock")
        #expect(outcome.resolution == .handled)
        #expect(decided.resolution == outcome.resolution)
    }

    @available(*, deprecated)
    @Test("OperationMiddleware.handle(context:next:) runs the stage")
    func middlewareHandle() async throws {
        let chain = PassThrough()
        let value = try await chain.handle(context: OperationContext(name: "restock")) { _ in 42 }
        #expect(value == 42)
    }
}
