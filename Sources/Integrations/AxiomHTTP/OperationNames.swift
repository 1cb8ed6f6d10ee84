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
/// `Route` is how the adapter knows a route: its pattern (Hummingbird's endpoint path), or its framework's object for
/// it (Vapor's `Route`, compared by identity and held, so that its address cannot name another route later).
package final class OperationNames<Route: Equatable & Sendable>: Sendable {
    /// A slot's method, route and name; nil route for an empty slot.
    final class Entry: Sendable {
        let method: String
        let route: Route?
        let name: String
        init(method: String, route: Route?, name: String) {
            self.method = method
            self.route = route
            self.name = name
        }
    }

    typealias Slots = InlineArray<16, PublishedReference<Entry>>
    /// How many routes' names can be kept.
    package static var slotCount: Int { Slots.count }
    private let slots = Slots { _ in PublishedReference(Entry(method: "", route: nil, name: "")) }

    /// No names kept yet.
    package init() {}

    /// The name of `route` requested with `method`, made by `make` when it is not kept. `slot` is any number that is
    /// the same for every request of this method and route (``slot(of:method:)`` for a pattern); a route whose slot
    /// holds another is named by `make` each time.
    package func name(method: String, route: Route, slot: UInt, make: () -> String) -> String {
        let index = Int(slot % UInt(Self.slotCount))
        let entry = slots[index].object
        if let kept = entry._withUnsafeGuaranteedRef({ $0.route == route && $0.method == method ? $0.name : nil }) {
            return kept
        }
        let name = make()
        if entry._withUnsafeGuaranteedRef({ $0.route == nil }) {
            // Another request may have filled the slot first; its name is kept instead.
            _ = slots[index].replace(entry, with: Entry(method: method, route: route, name: name))
        }
        return name
    }
}

extension OperationNames where Route == String {
    /// A slot for `route` requested with `method`: FNV-1a of their bytes, cheaper than `Hasher` for a pattern of a
    /// few dozen bytes, and the same for every request of one method and pattern.
    package static func slot(of route: String, method: String) -> UInt {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in method.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        for byte in route.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return UInt(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
#endif
