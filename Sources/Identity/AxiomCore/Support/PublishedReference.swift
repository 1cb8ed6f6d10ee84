import Synchronization

/// An immutable object published through an atomic pointer: readers take it without a lock and without a
/// reference count of their own; a writer replaces it whole.
///
/// The safety rule of every lock-free table in the framework, written once here: **a published object is never
/// freed while its owner lives.** A replaced object is retired (kept, strongly referenced), not released,
/// because a reader that loaded the pointer just before the replacement may still be reading it. Readers
/// therefore use the object unretained (``object``), which costs one acquiring load and no atomic reference
/// count. Everything is released when the owner, and so this value, is destroyed: no reader can exist then.
/// Replacements must be rare or shrinking (a registration, a table that doubles), since retired objects add up;
/// ``PublishedTable`` and ``ErrorRegistry``'s snapshot are its users.
@usableFromInline
package struct PublishedReference<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The address of the live object, retained once on behalf of this value. An integer, because `Atomic`
    /// needs a `Sendable` value of a fixed layout.
    @usableFromInline let live: Atomic<UInt>
    /// The objects replaced so far, kept alive for readers that may still hold one.
    private let retired: Mutex<[Object]>

    /// Publishes `object`.
    package init(_ object: Object) {
        live = Atomic(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()))
        retired = Mutex([])
    }

    deinit {
        // The retired objects go with `retired`.
        Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: live.load(ordering: .acquiring))!).release()
    }

    /// The live object, unretained: it lives at least as long as this value.
    @inlinable
    package var object: Unmanaged<Object> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: live.load(ordering: .acquiring))!)
    }

    /// Publishes `next` and retires the object it replaces. One writer at a time: call it under the owner's
    /// writer lock.
    package func replace(with next: Object) {
        let current = object
        live.store(UInt(bitPattern: Unmanaged.passRetained(next).toOpaque()), ordering: .releasing)
        // The live reference's +1 moves into the retired list.
        let kept = current.takeRetainedValue()
        retired.withTrackedLock { $0.append(kept) }
    }

    /// Publishes `next` in place of `expected` if that is still the live object, and retires `expected`; false,
    /// with `next` not published, when another writer replaced it first. For writers that take no lock.
    package func replace(_ expected: Unmanaged<Object>, with next: Object) -> Bool {
        let desired = Unmanaged.passRetained(next)
        let (exchanged, _) = live.compareExchange(
            expected: UInt(bitPattern: expected.toOpaque()), desired: UInt(bitPattern: desired.toOpaque()),
            ordering: .acquiringAndReleasing)
        guard exchanged else {
            desired.release()
            return false
        }
        // The live reference's +1 moves into the retired list.
        let kept = expected.takeRetainedValue()
        retired.withTrackedLock { $0.append(kept) }
        return true
    }

    /// How many objects have been replaced and are kept.
    package var retiredCount: Int { retired.withTrackedLock { $0.count } }
}
