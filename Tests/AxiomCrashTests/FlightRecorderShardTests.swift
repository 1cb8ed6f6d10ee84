import Axiom
import AxiomCrash
import Foundation
import Testing

@Suite("Flight recorder shards, alone in a process")
struct FlightRecorderShardTests {
    /// A thread gives its flight-recorder shard back when it exits, so short-lived threads, one after another and
    /// more of them than there are shards, each record without sharing the overflow ring, and so does one after
    /// them. Checked in a child process, where no other thread records: in the test process, other suites'
    /// threads hold shards too.
    @Test("an exited thread's flight-recorder shard is given back to the next thread that records")
    func shardsAreGivenBack() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.path + "/shards.out"
        let termination = ChildProcess.run(
            ChildProcess.probePath, [directory.path + "/reports", "shard-give-back"], stdoutPath: output)
        #expect(termination == .exited(0))
        let text = ChildProcess.readText(output).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text == "owners=20 threads=20 late=1")
    }

    /// Each thread writes into its own shard; a read merges the shards by time. Two threads, one after the other
    /// with a pause of several ticks of the coarse clock: the newest entries are the second thread's twelve, in
    /// the order it recorded them, after the newest of the first thread's forty (whose shard wrapped), in theirs.
    @Test("errors of several threads come back merged by time, each thread's in its own order")
    func shardsMergeInOrder() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.path + "/merge.out"
        let termination = ChildProcess.run(
            ChildProcess.probePath, [directory.path + "/reports", "shard-merge"], stdoutPath: output)
        #expect(termination == .exited(0))
        let operations = ChildProcess.readText(output).split(separator: "\n").map(String.init)
        let capacity = FlightRecorder.capacity
        let expected = (40 - (capacity - 12)..<40).map { "a-\($0)" } + (0..<12).map { "b-\($0)" }
        #expect(operations == expected)
    }
}
