import Synchronization

// Hash-free lookup tables for the registry's read path.
//
// A dictionary keyed by `ErrorCode` hashes two strings with SipHash on every lookup: tens of nanoseconds,
// more than the whole budget of a handled error. Codes that come from string literals (every
// `IdentifiableError` written in Swift) are immortal strings: their 16 raw bytes never change and never
// name another string, so the pair of raw representations is a perfect key that hashes in a few
// instructions. Strings of up to 15 bytes are stored inline, whether literal or built at run time: their raw
// bytes are their contents, so they are exact keys too. That makes codes a peer sends (decoded from JSON) fast
// keys as well, so the owners of these tables bound what peers can add: the registry remembers a fixed number
// of unknown codes, and the metrics observer keys its counters by descriptor, not by code. Longer strings built
// at run time are not immortal and take the dictionary path; they are never keys, since keys must stay valid
// forever.

/// The raw bits of two immortal strings: an exact identity for an `ErrorCode` made of literals.
@usableFromInline
struct RawCodeKey: Hashable, Sendable {
    @usableFromInline var w0, w1, w2, w3: UInt64

    /// The key of a code, or nil when either string is not immortal (and so may be freed and its bits reused).
    @inlinable
    init?(_ code: ErrorCode) {
        let domain = unsafeBitCast(code.domain, to: (UInt64, UInt64).self)
        let name = unsafeBitCast(code.code, to: (UInt64, UInt64).self)
        // The top bit of a string's object word marks it immortal: small (inline) strings and literals.
        guard domain.1 >> 63 == 1, name.1 >> 63 == 1 else { return nil }
        (w0, w1, w2, w3) = (domain.0, domain.1, name.0, name.1)
    }

    @inlinable
    var slotHash: Int {
        var h = w0 &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ w1) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ w2) &* 0x94D0_49BB_1331_11EB
        h = (h ^ w3) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }
}

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

/// A ``GrowingTable`` behind an atomic pointer: lookups without a lock, additions under one, and a table that
/// grows or is replaced published whole. Replaced tables are kept until this is destroyed, because a reader may
/// still be searching one; with growth by doubling they add up to less than the live table.
@usableFromInline
struct PublishedTable<Key: Hashable & Sendable, Value: Sendable>: ~Copyable, Sendable {
    /// The address of the live table, retained once on behalf of this value.
    @usableFromInline let live: Atomic<UInt>
    /// The tables it replaced.
    private let writer: Mutex<[GrowingTable<Key, Value>]>

    /// A published table holding `entries`.
    init(_ entries: [(Key, Value)] = [], hash: @escaping @Sendable (Key) -> Int) {
        let table = GrowingTable(entries, hash: hash)
        live = Atomic(UInt(bitPattern: Unmanaged.passRetained(table).toOpaque()))
        writer = Mutex([])
    }

    deinit {
        // No reader can exist once the owner is gone; the replaced tables go with `writer`.
        Unmanaged<GrowingTable<Key, Value>>.fromOpaque(UnsafeRawPointer(bitPattern: live.load(ordering: .acquiring))!)
            .release()
    }

    /// The live table, unretained: tables live as long as this value, so a reader needs no reference of its own.
    @inlinable
    var table: Unmanaged<GrowingTable<Key, Value>> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: live.load(ordering: .acquiring))!)
    }

    @inlinable
    func lookup(_ key: Key, hash: Int) -> Value? {
        table._withUnsafeGuaranteedRef { $0.lookup(key, hash: hash) }
    }

    /// The value under `key`; when there is none, `make()`'s value is added and returned (nil: nothing added).
    /// `make` runs under the writer's lock, so two callers never add the same key.
    func value(for key: Key, orAdd make: () -> Value?) -> Value? {
        writer.withTrackedLock { replaced in
            let current = table.takeUnretainedValue()
            if let existing = current.lookup(key, hash: current.hash(key)) { return existing }
            guard let value = make() else { return nil }
            if !current.insert(key, value) {
                let bigger = current.grown()
                _ = bigger.insert(key, value)
                publish(bigger, replacing: current, &replaced)
            }
            return value
        }
    }

    /// Replaces every entry with what `transform` makes of the current ones, as one new table.
    func replaceEntries(_ transform: ([(Key, Value)]) -> [(Key, Value)]) {
        writer.withTrackedLock { replaced in
            let current = table.takeUnretainedValue()
            publish(GrowingTable(transform(current.entryList), hash: current.hash), replacing: current, &replaced)
        }
    }

    /// How many entries the live table holds.
    var count: Int { writer.withTrackedLock { _ in table.takeUnretainedValue().count } }

    private func publish(
        _ next: GrowingTable<Key, Value>, replacing current: GrowingTable<Key, Value>,
        _ replaced: inout [GrowingTable<Key, Value>]
    ) {
        replaced.append(current)
        live.store(UInt(bitPattern: Unmanaged.passRetained(next).toOpaque()), ordering: .releasing)
        Unmanaged.passUnretained(current).release()
    }
}

extension ObjectIdentifier {
    /// A cheap hash of a type's metadata address: the low bits are alignment, the rest spread well enough.
    @inlinable
    var slotHash: Int {
        let bits = UInt(bitPattern: Int(bitPattern: self)) &* 0x9E37_79B9_7F4A_7C15
        return Int(bitPattern: bits >> 7)
    }
}
