import Axiom
import AxiomTesting
import Synchronization
import Testing

/// Writes down what it saw around each episode, and how many outcomes the observer had seen by then.
final class EpisodeLog: PipelineInstrument {
    let recorder: RecordingObserver
    private let entries = Mutex<[String]>([])

    init(recorder: RecordingObserver) { self.recorder = recorder }

    var lines: [String] { entries.withLock { $0 } }

    private func note(_ layer: Layer, _ operation: String, _ result: String) {
        let observed = recorder.records.count
        entries.withLock { $0.append("\(layer) \(operation): \(result) (observed \(observed))") }
    }

    func run<Value: Sendable>(
        layer: Layer, operation: String, _ body: () async throws(EscalatedError) -> Outcome<Value>
    ) async throws(EscalatedError) -> Outcome<Value> {
        do {
            let outcome = try await body()
            note(layer, operation, "\(outcome.disposition.map { "\($0)" } ?? "success")")
            return outcome
        } catch {
            note(layer, operation, "escalated")
            throw error
        }
    }

    func decide(
        layer: Layer, operation: String, _ body: () throws(EscalatedError) -> Outcome<any Sendable>
    ) throws(EscalatedError) -> Outcome<any Sendable> {
        let outcome = try body()
        note(layer, operation, "\(outcome.disposition.map { "\($0)" } ?? "success")")
        return outcome
    }
}

@Suite("Pipeline instrument")
struct PipelineInstrumentTests {
    @Test("an instrument runs around every episode and sees its final outcome, after the observers")
    func seesEveryOutcome() async throws {
        let harness = try Harness()
        let log = EpisodeLog(recorder: harness.recorder)
        var configuration = harness.configuration
        configuration.instrument = log
        let client = ErrorPipeline(layer: .client, escalatesTo: .context, configuration: configuration) {
            Recover(.code(ShopError.sold.errorCode), .fallback(0))
        }
        let application = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: configuration) {
            Handle()
        }

        #expect(try await client.run("fine") { 1 }.value == 1)
        #expect(try await client.run("sold") { () throws -> Int in throw ShopError.sold }.value == 0)
        let escalated = await #expect(throws: EscalatedError.self) {
            try await client.run("broken") { () throws -> Int in throw ShopError.broken }
        }
        #expect(try application.decide(try #require(escalated), operation: "top").disposition == .handle)

        #expect(
            log.lines == [
                "client fine: success (observed 0)",
                "client sold: recover (observed 1)",
                "client broken: escalated (observed 2)",
                "application top: handle (observed 3)",
            ])
    }

}
