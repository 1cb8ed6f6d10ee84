import Synchronization

/// A ``GrowingTable`` published whole (``PublishedReference``): lookups without a lock, additions under one,
/// and a table that grows or is replaced published whole. Replaced tables are retired until this is destroyed,
/// because a reader may still be searching one; with growth by doubling they add up to less than the live table.
///
/// The table holds at most `maxCount` entries: past it, ``value(for:orAdd:)`` adds nothing and returns nil, and
/// the owner takes its slow path. A table fed by outside input (codes, series) cannot grow without bound.
@usableFromInline
package struct PublishedTable<Key: Hashable & Sendable, Value: Sendable>: ~Copyable, Sendable {
    /// The live table, and the ones it replaced.
    @usableFromInline let published: PublishedReference<GrowingTable<Key, Value>>
    /// Taken by every writer: a table is written by one writer at a time.
    private let writer = Mutex(())
    /// The most entries the table holds.
    package let maxCount: Int

    /// A published table holding `entries` (the first `maxCount` of them), and at most `maxCount` ever.
    package init(_ entries: [(Key, Value)] = [], maxCount: Int = .max, hash: @escaping @Sendable (Key) -> Int) {
        precondition(maxCount > 0, "a table that can hold nothing")
        self.maxCount = maxCount
        published = PublishedReference(GrowingTable(Array(entries.prefix(maxCount)), hash: hash))
    }

    /// The live table, unretained (see ``PublishedReference``).
    @inlinable
    var table: Unmanaged<GrowingTable<Key, Value>> { published.object }

    /// The value under `key`, searched without a lock.
    @inlinable
    package func lookup(_ key: Key, hash: Int) -> Value? {
        table._withUnsafeGuaranteedRef { $0.lookup(key, hash: hash) }
    }

    /// The value under `key`; when there is none, `make()`'s value is added and returned (nil: nothing added,
    /// because `make` returned nil or the table holds `maxCount` entries, in which case `make` is not called).
    /// `make` runs under the writer's lock, so two callers never add the same key.
    package func value(for key: Key, orAdd make: () -> Value?) -> Value? {
        writer.withTrackedLock { _ in
            let current = table.takeUnretainedValue()
            if let existing = current.lookup(key, hash: current.hash(key)) { return existing }
            guard current.count < maxCount, let value = make() else { return nil }
            if !current.insert(key, value) {
                let bigger = current.grown()
                _ = bigger.insert(key, value)
                published.replace(with: bigger)
            }
            return value
        }
    }

    /// Replaces every entry with what `transform` makes of the current ones, as one new table.
    package func replaceEntries(_ transform: ([(Key, Value)]) -> [(Key, Value)]) {
        writer.withTrackedLock { _ in
            let current = table.takeUnretainedValue()
            published.replace(
                with: GrowingTable(Array(transform(current.entryList).prefix(maxCount)), hash: current.hash))
        }
    }

    /// How many entries the live table holds.
    package var count: Int { writer.withTrackedLock { _ in table.takeUnretainedValue().count } }

    /// How many tables have been replaced and are kept for readers.
    package var retiredCount: Int { published.retiredCount }
}
