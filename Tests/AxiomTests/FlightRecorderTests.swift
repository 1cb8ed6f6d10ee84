import Axiom
import Foundation
import Testing

/// The ring of recently decided errors that the crash reporter copies into a report. It is one per process and
/// other tests write into it at the same time, so these tests look for their own entries by operation name.
@Suite("Flight recorder", .serialized)
struct FlightRecorderTests {
    enum RingError: IdentifiableError {
        case refused
        var errorCode: ErrorCode { ErrorCode("ring.test", "REFUSED") }
    }

    static let registry: ErrorRegistry = {
        let registry = ErrorRegistry()
        try! registry.register(
            ErrorCatalog(
                source: "ring.test", domains: ["ring.test"],
                descriptors: [ErrorDescriptor(code: RingError.refused.errorCode, category: .api, severity: .warning)]))
        return registry
    }()

    @Test("every decided error is recorded, with its code, resolution, layer, operation and attempt")
    func decidedErrorsAreRecorded() throws {
        let before = FlightRecorder.recordedCount
        let pipeline = ErrorPipeline(
            layer: .context, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: Self.registry, observers: [])
        ) {
            Ignore(.code(RingError.refused.errorCode))
        }
        // Other suites write too: ours is among the last 32 unless 32 others came in between, so look at once,
        // and try again in the unlikely case they did.
        var found: FlightRecorder.Entry?
        for attempt in 0..<5 where found == nil {
            let operation = "ring-\(attempt)-\(UInt64.random(in: 0...UInt64.max))"
            _ = try pipeline.decide(RingError.refused, operation: operation)
            found = FlightRecorder.recentErrors().last { $0.operation == operation }
        }
        #expect(FlightRecorder.recordedCount > before)
        let entry = try #require(found)
        #expect(entry.code == "ring.test/REFUSED")
        #expect(entry.resolution == "ignored")
        #expect(entry.layer == "context")
        #expect(entry.attempt == 1)
        #expect(entry.seconds > 1_600_000_000)
    }

    @Test("long names are cut to the slot's fields, never past them")
    func longNamesAreCut() throws {
        let pipeline = ErrorPipeline(
            layer: Layer(String(repeating: "l", count: 100)), escalatesTo: nil,
            configuration: PipelineConfiguration(registry: Self.registry, observers: [])
        ) {}
        var found: FlightRecorder.Entry?
        for _ in 0..<5 where found == nil {
            let operation = "cut-\(UInt64.random(in: 0...UInt64.max))-" + String(repeating: "o", count: 200)
            _ = try pipeline.decide(RingError.refused, operation: operation)
            found = FlightRecorder.recentErrors().last { operation.hasPrefix($0.operation) }
        }
        let entry = try #require(found)
        #expect(entry.operation.utf8.count == 56)
        #expect(entry.layer.utf8.count == 24)
    }

    /// Eight tasks decide errors at once while the ring is read: every entry read is whole (a known shape, not
    /// a mix of two writes), and the ring never holds more than its capacity.
    @Test("concurrent writers and a reader never see a torn entry")
    func concurrentWriters() async throws {
        let pipeline = ErrorPipeline(
            layer: .client, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: Self.registry, observers: [])
        ) {
            Ignore(.code(RingError.refused.errorCode))
        }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<2_000 {
                        _ = try? pipeline.decide(RingError.refused, operation: "w\(writer)-\(index)")
                    }
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    let entries = FlightRecorder.recentErrors()
                    #expect(entries.count <= FlightRecorder.capacity)
                    for entry in entries where entry.code == "ring.test/REFUSED" && entry.layer == "client" {
                        #expect(entry.operation.hasPrefix("w") && entry.operation.contains("-"), "\(entry)")
                        #expect(entry.resolution == "ignored")
                    }
                }
            }
        }
    }

    /// Each thread writes into its own shard; a report merges the shards by time. Two threads, one after the other
    /// (a pause longer than the coarse clock's tick between them): the merged list has the first thread's errors,
    /// in the order it decided them, before the second's, in theirs.
    @Test("errors of several threads come back merged by time, each thread's in its own order")
    func shardsMergeInOrder() async throws {
        let pipeline = ErrorPipeline(
            layer: .context, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: Self.registry, observers: [])
        ) {
            Ignore(.code(RingError.refused.errorCode))
        }
        let token = UInt32.random(in: 0...UInt32.max)
        func decide(on thread: String, count: Int) async {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread {
                    for index in 0..<count {
                        _ = try? pipeline.decide(RingError.refused, operation: "m\(token)-\(thread)-\(index)")
                    }
                    done.resume()
                }.start()
            }
        }
        // More than a shard holds from the first thread, so its shard wraps.
        await decide(on: "a", count: 40)
        try await Task.sleep(for: .milliseconds(30))
        await decide(on: "b", count: 12)
        let ours = FlightRecorder.recentErrors().filter { $0.operation.hasPrefix("m\(token)-") }
        let order = ours.map { entry -> (String, Int) in
            let parts = entry.operation.split(separator: "-")
            return (String(parts[1]), Int(parts[2])!)
        }
        // Other suites write at the same time, so some of ours may have been pushed out; what is left is in order.
        #expect(!order.isEmpty)
        #expect(order.last.map { $0.0 == "b" && $0.1 == 11 } == true, "\(order)")
        for (earlier, later) in zip(order, order.dropFirst()) {
            #expect(earlier.0 < later.0 || (earlier.0 == later.0 && earlier.1 < later.1), "\(order)")
        }
        #expect(ours.count <= FlightRecorder.capacity)
    }
}
