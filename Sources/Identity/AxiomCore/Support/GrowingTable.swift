import Synchronization

/// A hash table that readers search without a lock while one writer at a time adds entries.
///
/// Open addressing over a power-of-two array of slots, at most half full. A slot is an atomic index into an
/// entry buffer: the writer stores an entry first, then publishes its slot with release ordering, so a reader
/// that loads the slot with acquire ordering sees the whole entry. Published entries are never changed or
/// removed, so readers need no lock and adding an entry copies nothing. When the table is full, its owner
/// publishes a table twice as big (``grown()``) and keeps the old one while readers may hold it: the replaced
/// tables of an owner add up to less than its live one.
@usableFromInline
final class GrowingTable<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked: the buffers are written only by the owner's writer, under the owner's lock, and an entry only
    // before its slot is published; published entries are never written again. `count` is the writer's alone.
    // Readers only load slots atomically and read the entries those slots publish.

    /// One atomic word per slot: 0 when empty, else the entry's index + 1.
    @usableFromInline let slots: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let entries: UnsafeMutablePointer<(key: Key, value: Value)>
    @usableFromInline let mask: Int
    /// How many entries fit before the table must grow: half the slots.
    let limit: Int
    /// Entries written so far.
    private(set) var count = 0
    let hash: @Sendable (Key) -> Int

    /// An empty table with room for at least `minimumCount` entries.
    init(minimumCount: Int = 4, hash: @escaping @Sendable (Key) -> Int) {
        var slotCount = 8
        while slotCount < minimumCount * 2 { slotCount <<= 1 }
        slots = .allocate(capacity: slotCount)
        for index in 0..<slotCount { (slots + index).initialize(to: Atomic(0)) }
        entries = .allocate(capacity: slotCount / 2)
        mask = slotCount - 1
        limit = slotCount / 2
        self.hash = hash
    }

    /// A table holding `entries`; of two entries with the same key, the first is kept.
    convenience init(_ entries: [(Key, Value)], hash: @escaping @Sendable (Key) -> Int) {
        self.init(minimumCount: entries.count, hash: hash)
        for (key, value) in entries where lookup(key, hash: hash(key)) == nil { _ = insert(key, value) }
    }

    deinit {
        entries.deinitialize(count: count)
        entries.deallocate()
        slots.deinitialize(count: mask + 1)
        slots.deallocate()
    }

    @inlinable
    func lookup(_ key: Key, hash: Int) -> Value? {
        var index = hash & mask
        while true {
            let slot = slots[index].load(ordering: .acquiring)
            if slot == 0 { return nil }
            if entries[slot &- 1].key == key { return entries[slot &- 1].value }
            index = (index &+ 1) & mask
        }
    }

    /// Adds an entry whose key is not in the table, or returns false when the table is full. The caller holds
    /// the owner's lock.
    func insert(_ key: Key, _ value: Value) -> Bool {
        guard count < limit else { return false }
        (entries + count).initialize(to: (key, value))
        count += 1
        var index = hash(key) & mask
        while slots[index].load(ordering: .relaxed) != 0 { index = (index + 1) & mask }
        slots[index].store(count, ordering: .releasing)
        return true
    }

    /// Every entry, in the order they were added. The caller holds the owner's lock.
    var entryList: [(Key, Value)] {
        (0..<count).map { (entries[$0].key, entries[$0].value) }
    }

    /// A table with twice the room, holding every entry of this one. The caller holds the owner's lock.
    func grown() -> GrowingTable {
        let bigger = GrowingTable(minimumCount: limit * 2, hash: hash)
        for index in 0..<count { _ = bigger.insert(entries[index].key, entries[index].value) }
        return bigger
    }
}
