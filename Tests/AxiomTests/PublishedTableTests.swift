import Synchronization
import Testing

@testable import AxiomCore

/// The framework's lock-free publication primitives: `PublishedReference` and `PublishedTable` on top of it.
/// An object to publish.
final class PublishedBox: Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
}

/// What concurrent tasks share: the primitives are ~Copyable, so they live in an object.
final class SharedTable: Sendable {
    let table = PublishedTable<Int, Int>(hash: PublishedTableTests.hash)
    let made = Mutex(0)
    let added = Atomic(0)
    let misses = Atomic(0)
}

@Suite("Published tables")
struct PublishedTableTests {
    static func hash(_ key: Int) -> Int { key &* 0x9E37_79B9 }

    @Test("a replaced object stays alive while its owner lives, and goes with it")
    func replacedObjectsAreRetired() {
        weak var first: PublishedBox?
        weak var second: PublishedBox?
        do {
            let reference = PublishedReference(PublishedBox(1))
            first = reference.object.takeUnretainedValue()
            reference.replace(with: PublishedBox(2))
            second = reference.object.takeUnretainedValue()
            reference.replace(with: PublishedBox(3))
            #expect(first?.value == 1 && second?.value == 2, "a reader may still hold a replaced object")
            #expect(reference.object.takeUnretainedValue().value == 3)
            #expect(reference.retiredCount == 2)
        }
        #expect(first == nil && second == nil)
    }

    @Test("every added entry is found across growths; replaced tables are few")
    func growth() {
        let table = PublishedTable<Int, Int>(hash: Self.hash)
        for key in 0..<10_000 {
            #expect(table.value(for: key) { key * 2 } == key * 2)
        }
        for key in 0..<10_000 where table.lookup(key, hash: Self.hash(key)) != key * 2 {
            Issue.record("lost \(key)")
            break
        }
        #expect(table.lookup(10_000, hash: Self.hash(10_000)) == nil)
        #expect(table.count == 10_000)
        // Doubling from 4 entries to at least 10,000: 12 replacements, not one per entry.
        #expect(table.retiredCount <= 12)
        // An existing key keeps its value; `make` is not asked.
        #expect(
            table.value(for: 7) {
                Issue.record("made twice"); return 0
            } == 14)
        // `make` may decline: nothing is added.
        #expect(table.value(for: -1) { nil } == nil)
        #expect(table.count == 10_000)
    }

    @Test("a table holds at most its maximum: past it nothing is made or added, and what it holds is still found")
    func sizeCap() {
        let table = PublishedTable<Int, Int>((0..<3).map { ($0, $0) }, maxCount: 8, hash: Self.hash)
        for key in 3..<8 { #expect(table.value(for: key) { key } == key) }
        #expect(table.count == 8)
        #expect(
            table.value(for: 100) {
                Issue.record("made past the maximum"); return 100
            } == nil)
        #expect(table.lookup(100, hash: Self.hash(100)) == nil)
        #expect(table.count == 8)
        for key in 0..<8 { #expect(table.lookup(key, hash: Self.hash(key)) == key) }
        // Replacing keeps the first `maxCount` entries of what the transform makes.
        table.replaceEntries { entries in entries + (50..<60).map { ($0, $0) } }
        #expect(table.count == 8)
    }

    @Test("two tasks racing to add the same keys make each value once")
    func racingWriters() async {
        let shared = SharedTable()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    for key in 0..<2_000 {
                        _ = shared.table.value(for: key) {
                            shared.made.withLock { $0 += 1 }
                            return key
                        }
                    }
                }
            }
        }
        #expect(shared.made.withLock { $0 } == 2_000)
        #expect(shared.table.count == 2_000)
    }

    @Test("readers searching while a writer grows the table find every entry added before they looked")
    func readersDuringGrowth() async {
        let shared = SharedTable()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for key in 0..<20_000 {
                    _ = shared.table.value(for: key) { key + 1 }
                    shared.added.store(key + 1, ordering: .releasing)
                }
            }
            // One reader: the cooperative pool may have two threads, and a spinning reader must leave one to the
            // writer. It yields now and then all the same.
            group.addTask {
                var probe = 0
                var searches = 0
                while shared.added.load(ordering: .acquiring) < 20_000 {
                    let known = shared.added.load(ordering: .acquiring)
                    searches += 1
                    if searches % 64 == 0 { await Task.yield() }
                    guard known > 0 else { continue }
                    probe = (probe &* 31 &+ 7) % known
                    if shared.table.lookup(probe, hash: Self.hash(probe)) != probe + 1 {
                        shared.misses.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(shared.misses.load(ordering: .relaxed) == 0)
    }

    @Test("replacing the entries publishes a new table whole")
    func replaceEntries() {
        let table = PublishedTable<Int, Int>([(1, 1), (2, 2), (3, 3)], hash: Self.hash)
        let before = table.retiredCount
        table.replaceEntries { entries in entries.filter { $0.0 != 2 } }
        #expect(table.lookup(1, hash: Self.hash(1)) == 1)
        #expect(table.lookup(2, hash: Self.hash(2)) == nil)
        #expect(table.lookup(3, hash: Self.hash(3)) == 3)
        #expect(table.count == 2)
        #expect(table.retiredCount == before + 1)
    }
}
