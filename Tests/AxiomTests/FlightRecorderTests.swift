import Axiom
import CAxiomFlightRecorder
import Foundation
import Synchronization
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

    /// How many times a test records and reads back before it gives up. A report keeps the newest 32 entries of all
    /// threads, and within one tick of the coarse clock the threads' entries are ordered by ring, not by instant: while
    /// another suite's threads decide errors in a burst, an entry of ours can be out of the newest 32 by the time it is
    /// read, again and again until the burst ends. Each try takes well under a millisecond.
    static let readAttempts = 2_000

    /// A pipeline of `layer` that ignores `RingError.refused`, with no observers.
    static func ignoringRefused(in layer: Layer) -> ErrorPipeline<Ignore> {
        ErrorPipeline(
            layer: layer, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [])
        ) {
            Ignore(.code(RingError.refused.errorCode))
        }
    }

    @Test("every decided error is recorded, with its code, disposition, layer, operation and attempt")
    func decidedErrorsAreRecorded() throws {
        let before = FlightRecorder.recordedCount
        let pipeline = Self.ignoringRefused(in: .context)
        // Other suites write too: ours is among the last 32 unless 32 others came in between, so look at once,
        // and try again while they do (see readAttempts).
        var found: FlightRecorder.Entry?
        for attempt in 0..<Self.readAttempts where found == nil {
            let operation = "ring-\(attempt)-\(UInt64.random(in: 0...UInt64.max))"
            _ = try pipeline.decide(RingError.refused, operation: operation)
            found = FlightRecorder.recentErrors().last { $0.operation == operation }
        }
        #expect(FlightRecorder.recordedCount > before)
        let entry = try #require(found)
        #expect(entry.code == "ring.test/REFUSED")
        #expect(entry.disposition == .ignore)
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
        for _ in 0..<Self.readAttempts where found == nil {
            let operation = "cut-\(UInt64.random(in: 0...UInt64.max))-" + String(repeating: "o", count: 200)
            _ = try pipeline.decide(RingError.refused, operation: operation)
            found = FlightRecorder.recentErrors().last { operation.hasPrefix($0.operation) }
        }
        let entry = try #require(found)
        #expect(entry.operation.utf8.count == 56)
        #expect(entry.layer.utf8.count == 24)
    }

    /// Pipelines record the code's and the layer's names as indexes into the recorder's table of names (the crash
    /// handler copies the names in) and the operation's bytes copied with fixed-size moves chosen by its length:
    /// every length comes back exactly, cut where the field ends.
    @Test("every length of operation, code and layer comes back exactly, cut at its field")
    func everyLengthComesBackExactly() throws {
        let token = UInt64.random(in: 0...UInt64.max)
        let codeLengths = [40, 50, 63, 64, 65, 90]
        let layerLengths = [0, 1, 23, 24, 25]
        for length in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 55, 56, 57, 80] {
            // The code carries the token and the length, so the entry is ours; the operation is any bytes.
            let code = "len\(token)/\(length)/".padding(toLength: codeLengths[length % 6], withPad: "c", startingAt: 0)
            let layer = String(repeating: "y", count: layerLengths[length % 5])
            let operation = String((0..<length).map { Character(UnicodeScalar(UInt8(65 + $0 % 26))) })
            let codeName = FlightRecorder.nameIndex(code)
            let layerName = FlightRecorder.nameIndex(layer)
            var bytes = Array(operation.utf8)
            // Read back at once; other suites' writes could push it out of the newest 32, so try again if they did.
            var found: FlightRecorder.Entry?
            for _ in 0..<Self.readAttempts where found == nil {
                axiom_flight_recorder_record(
                    codeName, layerName, &bytes, bytes.count, 7, UInt8(AXIOM_RECENT_ERROR_RECOVERED))
                found = FlightRecorder.recentErrors().last {
                    code.hasPrefix($0.code) && $0.code.hasPrefix("len\(token)/\(length)/")
                }
            }
            let entry = try #require(found, "length \(length)")
            #expect(entry.code == String(code.prefix(64)), "length \(length)")
            #expect(entry.layer == String(layer.prefix(24)), "length \(length)")
            #expect(entry.operation == String(operation.prefix(56)), "length \(length)")
            #expect(entry.attempt == 7)
            #expect(entry.disposition == .recover)
        }
    }

    /// A name is kept once, whoever asks for it (two descriptors of one code, a layer and a code spelled alike), and
    /// only its first 64 bytes count: the table grows with the distinct names a process records, not with its
    /// errors or its descriptors.
    @Test("the table of names keeps each name once, cut at 64 bytes")
    func namesAreKeptOnce() {
        let token = UInt64.random(in: 0...UInt64.max)
        let first = FlightRecorder.nameIndex("names\(token)/FIRST")
        #expect(first != 0 && first != AXIOM_RECORDED_NAME_NONE)
        #expect(FlightRecorder.nameIndex("names\(token)/FIRST") == first)
        let second = FlightRecorder.nameIndex("names\(token)/SECOND")
        #expect(second != first && second != AXIOM_RECORDED_NAME_NONE)
        let long = "names\(token)/" + String(repeating: "L", count: 80)
        #expect(FlightRecorder.nameIndex(long) == FlightRecorder.nameIndex(String(long.prefix(64))))
        #expect(FlightRecorder.nameIndex(long) != FlightRecorder.nameIndex(String(long.prefix(63))))
        #expect(FlightRecorder.nameIndex("") == FlightRecorder.nameIndex(""))
    }

    /// A name the table could not keep (it is full, or its memory could not be mapped) is recorded all the same, with
    /// its code and layer empty: the rest of the entry still tells what happened, and when.
    @Test("an entry whose names the table does not hold keeps everything else, with its names empty")
    func namesNotKeptAreEmpty() throws {
        let operation = "unnamed-\(UInt64.random(in: 0...UInt64.max))"
        var bytes = Array(operation.utf8)
        var found: FlightRecorder.Entry?
        for _ in 0..<Self.readAttempts where found == nil {
            axiom_flight_recorder_record(
                AXIOM_RECORDED_NAME_NONE, 0, &bytes, bytes.count, 3, UInt8(AXIOM_RECENT_ERROR_ESCALATED))
            found = FlightRecorder.recentErrors().last { $0.operation == operation }
        }
        let entry = try #require(found)
        #expect(entry.code.isEmpty && entry.layer.isEmpty)
        #expect(entry.attempt == 3 && entry.disposition == .escalate && entry.seconds > 1_600_000_000)
    }

    /// Eight tasks decide errors at once while the ring is read: every entry read is whole (a known shape, not
    /// a mix of two writes), and the ring never holds more than its capacity.
    @Test("concurrent writers and a reader never see a torn entry")
    func concurrentWriters() async throws {
        let pipeline = Self.ignoringRefused(in: .client)
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
                        #expect(entry.disposition == .ignore)
                    }
                }
            }
        }
    }

    /// More threads than shards record at once (the threads beyond the shards share the overflow ring), while
    /// another thread reads: every entry read is one writer's (its code, layer and operation name the same
    /// thread), and each thread's entries that are left appear in the order it recorded them.
    @Test("more recording threads than shards: entries stay whole and each thread's stay in order")
    func moreThreadsThanShards() async throws {
        let threads = 40
        let records = 1_000
        let token = UInt32.random(in: 0...UInt32.max)
        let ownersAtStart = ThreadCount(0)
        let start = Barrier(threads)
        let writing = ThreadCount(threads)
        async let read: [String] = readOnAThread(token: token, while: writing)
        await onThreads(threads) { thread in
            var code = "mix\(token)/T\(thread)"
            var layer = "L\(thread)-\(token)"
            var operation = "mix-\(token)-\(thread)"
            let resolution = UInt8(thread % 4 + 1)
            func record(_ attempt: Int) {
                code.withUTF8 { code in
                    layer.withUTF8 { layer in
                        operation.withUTF8 { operation in
                            axiom_flight_recorder_record_error(
                                code.baseAddress, code.count, layer.baseAddress, layer.count, operation.baseAddress,
                                operation.count, UInt32(attempt), resolution)
                        }
                    }
                }
            }
            record(1)
            if axiom_flight_recorder_thread_owns_shard() != 0 { ownersAtStart.value.add(1, ordering: .relaxed) }
            start.wait()
            for attempt in 2...records { record(attempt) }
            writing.value.subtract(1, ordering: .releasing)
        }
        let problems = await read
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        let final = FlightRecorder.recentErrors()
        #expect(Self.problems(in: final, token: token).isEmpty, "\(final)")
        #expect(final.count <= FlightRecorder.capacity)
        // All 40 were alive at the barrier, so at most 16 of them owned a shard: the others wrote the overflow ring.
        #expect(ownersAtStart.value.load(ordering: .relaxed) <= Int(AXIOM_RECENT_ERROR_SHARDS))
    }

    /// Short-lived threads, one after another and more of them than there are shards, each decide an error, and
    /// each one's entry is read back, the last thread's too. (That each owned a shard, given back by the one before,
    /// is checked in a child process where no other thread records: here other suites' threads hold shards too.)
    @Test("short-lived threads, more than there are shards, each find their decided error in the ring")
    func shortLivedThreadsAreRecorded() async throws {
        let pipeline = Self.ignoringRefused(in: .context)
        let token = UInt32.random(in: 0...UInt32.max)
        func decideOnANewThread(_ name: String) async -> FlightRecorder.Entry? {
            await withCheckedContinuation { done in
                Thread {
                    // Entries of one tick of the coarse clock are ordered by ring, so 32 others of the same tick
                    // could hide this one: as in the tests above, look at once and try again in that case.
                    var found: FlightRecorder.Entry?
                    for attempt in 0..<Self.readAttempts where found == nil {
                        let operation = "back-\(token)-\(name)-\(attempt)"
                        _ = try? pipeline.decide(RingError.refused, operation: operation)
                        found = FlightRecorder.recentErrors().last { $0.operation == operation }
                    }
                    done.resume(returning: found)
                }.start()
            }
        }
        for index in 0...Int(AXIOM_RECENT_ERROR_SHARDS) + 4 {
            let entry = await decideOnANewThread("\(index)")
            #expect(entry?.code == "ring.test/REFUSED", "thread \(index)")
            #expect(entry?.layer == "context", "thread \(index)")
        }
    }

    /// What is wrong with the entries of `moreThreadsThanShards` (run `token`) in one read of the ring.
    static func problems(in entries: [FlightRecorder.Entry], token: UInt32) -> [String] {
        var problems: [String] = []
        var lastAttempt: [Int: Int] = [:]
        for entry in entries {
            let mark = "\(token)"
            guard entry.code.contains(mark) || entry.layer.contains(mark) || entry.operation.contains(mark) else {
                continue
            }
            guard entry.operation.hasPrefix("mix-\(token)-"),
                let thread = Int(entry.operation.split(separator: "-")[2]),
                entry.code == "mix\(token)/T\(thread)", entry.layer == "L\(thread)-\(token)",
                entry.disposition == [Disposition.ignore, .recover, .escalate, .handle][thread % 4]
            else {
                problems.append("mixed: \(entry)")
                continue
            }
            if let last = lastAttempt[thread], last >= entry.attempt {
                problems.append("out of order: thread \(thread)'s attempt \(entry.attempt) after \(last)")
            }
            lastAttempt[thread] = entry.attempt
        }
        return problems
    }
}

/// Reads the ring on a thread of its own, again and again while `writing` is above 0; returns what was wrong in
/// those reads (at most 20).
private func readOnAThread(token: UInt32, while writing: ThreadCount) async -> [String] {
    await withCheckedContinuation { done in
        Thread {
            var problems: [String] = []
            while writing.value.load(ordering: .acquiring) > 0 && problems.count < 20 {
                problems += FlightRecorderTests.problems(in: FlightRecorder.recentErrors(), token: token)
            }
            done.resume(returning: problems)
        }.start()
    }
}

/// Runs `body(index)` on `count` new threads at once (real threads, not tasks) and returns when all have ended.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.notify(queue: .global()) { finished.resume() }
    }
}

/// A number that the test's threads share.
private final class ThreadCount: Sendable {
    let value: Atomic<Int>
    init(_ value: Int) { self.value = Atomic(value) }
}

/// A pthread barrier: `wait()` returns once `count` threads are waiting.
private final class Barrier: @unchecked Sendable {  // the barrier synchronizes itself; the pointer never changes
    private let barrier = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)

    init(_ count: Int) { pthread_barrier_init(barrier, nil, UInt32(count)) }

    deinit {
        pthread_barrier_destroy(barrier)
        barrier.deallocate()
    }

    func wait() { pthread_barrier_wait(barrier) }
}
