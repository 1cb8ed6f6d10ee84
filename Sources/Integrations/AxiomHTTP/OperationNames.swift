#if HTTP
import Axiom

/// The names a server adapter gives its pipeline's events for a matched route (`GET /orders/{id}`), kept so that an
/// error answer does not make its name anew (a string interpolation, and for a long name an allocation) on every
/// request. Shared by the copies of an adapter: it makes one when it is made.
///
/// Each of ``slotCount`` slots, read without a lock, keeps the name of the first method and route that fall in it;
/// a method and route whose slot holds another get their name made each time, as before. Slots are never replaced,
/// so nothing is retired, and what is kept is bounded. Only routes (a server's finite set of patterns) are named
/// here: a request that matched none is named by its path, which a client chooses, and is never kept.
///
/// A route is known by its pattern (Hummingbird's endpoint path), or by its framework's object for it (Vapor's
/// `Route`, compared by identity and held, so that its address cannot name another route later).
package final class OperationNames: Sendable {
    /// A slot's method, route and name.
    final class Entry: Sendable {
        let method: String
        /// The route's pattern, when it is known by one.
        let pattern: String?
        /// The route's object, when it is known by one.
        let object: (any AnyObject & Sendable)?
        let name: String
        init(method: String, pattern: String?, object: (any AnyObject & Sendable)?, name: String) {
            self.method = method
            self.pattern = pattern
            self.object = object
            self.name = name
        }

        /// What an empty slot holds: no route.
        static let empty = Entry(method: "", pattern: nil, object: nil, name: "")
    }

    typealias Slots = InlineArray<16, PublishedReference<Entry>>
    /// How many routes' names can be kept.
    package static var slotCount: Int { Slots.count }
    private let slots = Slots { _ in PublishedReference(Entry.empty) }

    /// No names kept yet.
    package init() {}

    /// The name of the route of `pattern` requested with `method`, made by `make` when it is not kept.
    package func name(method: String, pattern: String, make: () -> String) -> String {
        let index = Int(Self.slot(of: pattern, method: method) % UInt(Self.slotCount))
        let entry = slots[index].object
        if let kept = entry._withUnsafeGuaranteedRef({ $0.pattern == pattern && $0.method == method ? $0.name : nil }) {
            return kept
        }
        return keep(make(), method: method, pattern: pattern, object: nil, in: index, replacing: entry)
    }

    /// The name of `route` (known by its identity) requested with `method`, made by `make` when it is not kept.
    package func name(method: String, route: any AnyObject & Sendable, make: () -> String) -> String {
        let address = UInt(bitPattern: ObjectIdentifier(route))
        // Past the bits every object's alignment leaves zero.
        let index = Int(((address >> 4) ^ (address >> 11)) % UInt(Self.slotCount))
        let entry = slots[index].object
        if let kept = entry._withUnsafeGuaranteedRef({ $0.object === route && $0.method == method ? $0.name : nil }) {
            return kept
        }
        return keep(make(), method: method, pattern: nil, object: route, in: index, replacing: entry)
    }

    /// `name`, kept in slot `index` if `entry` there is still the empty one; another request may have filled it
    /// first, and its name is kept instead.
    private func keep(
        _ name: String, method: String, pattern: String?, object: (any AnyObject & Sendable)?, in index: Int,
        replacing entry: Unmanaged<Entry>
    ) -> String {
        if entry._withUnsafeGuaranteedRef({ $0 === Entry.empty }) {
            _ = slots[index].replace(entry, with: Entry(method: method, pattern: pattern, object: object, name: name))
        }
        return name
    }

    /// The slot of a pattern requested with `method`: FNV-1a of their bytes, cheaper than `Hasher` for a pattern of
    /// a few dozen bytes, and the same for every request of one method and pattern.
    package static func slot(of pattern: String, method: String) -> UInt {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        mix(method, into: &hash)
        mix(pattern, into: &hash)
        return UInt(truncatingIfNeeded: hash ^ (hash >> 29))
    }

    /// FNV-1a's step over each byte of `text`, read from its UTF-8 storage (a loop over memory, where
    /// `String.UTF8View`'s iterator asks the string's representation per byte; a native or small string, as every
    /// string here is, is not copied for it).
    @inline(__always)
    private static func mix(_ text: String, into hash: inout UInt64) {
        var text = text
        text.withUTF8 { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        }
    }
}
#endif
