import CAxiomDwarf
import Dispatch
import Synchronization

/// Independent pieces of work spread over a few threads, for the symbolicator's batches (the DWARF tables of many
/// units, a module's symbol table beside them).
enum ParallelWork {
    /// The threads a batch may use: the processors this process may run on, at most `limit`.
    static func threads(limit: Int = 8) -> Int {
        max(1, min(limit, Int(axiom_dwarf_usable_processors())))
    }

    /// `transform` of every element, in the elements' order, computed on up to `threads` threads at once (the
    /// caller's among them), each taking the next element not yet taken.
    static func map<Element: Sendable, Result: Sendable>(
        _ elements: [Element], threads: Int, _ transform: @Sendable (Element) -> Result
    ) -> [Result] {
        let workers = min(threads, elements.count)
        guard workers > 1 else { return elements.map(transform) }
        let slots = Slots<Result>(count: elements.count)
        defer { slots.free() }
        let next = Atomic<Int>(0)
        // ThreadSanitizer does not see libdispatch hand the work over and wait for it (it is not instrumented): the
        // caller's writes before, and the workers' results after, are ordered for it on the slots' address.
        axiom_tsan_release(slots.handOver)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            axiom_tsan_acquire(slots.handOver)
            defer { axiom_tsan_release(slots.handOver) }
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < elements.count else { return }
                slots.buffer[index] = transform(elements[index])
            }
        }
        axiom_tsan_acquire(slots.handOver)
        return slots.buffer.map { $0! }
    }

    /// The results' storage.
    private struct Slots<Value>: @unchecked Sendable {
        // @unchecked: each slot is written by the one worker that took its index, and read only once
        // `concurrentPerform` has returned, which it does after every worker has.
        let buffer: UnsafeMutableBufferPointer<Value?>
        /// Where ThreadSanitizer is told of the hand-over.
        var handOver: UnsafeRawPointer { UnsafeRawPointer(buffer.baseAddress!) }

        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }

        func free() {
            _ = buffer.deinitialize()
            buffer.deallocate()
        }
    }
}
