#if HTTP
import AxiomHTTP
import Testing

/// A server adapter names its events by method and route once, and then reads the name without making it again.
@Suite("Event names of routes")
struct OperationNamesTests {
    /// Two patterns whose slot is the same, for the method `GET`.
    static func patternsSharingASlot() -> (String, String) {
        var seen: [UInt: String] = [:]
        for number in 0... {
            let pattern = "/resource\(number)/{id}"
            let slot = OperationNames.slot(of: pattern, method: "GET") % UInt(OperationNames.slotCount)
            if let first = seen[slot] { return (first, pattern) }
            seen[slot] = pattern
        }
        fatalError("unreachable")
    }

    @Test("a name is made once per method and route; a route whose slot holds another's is named each time")
    func keptPerMethodAndPattern() {
        let names = OperationNames()
        let (kept, sharing) = Self.patternsSharingASlot()
        var made: [String] = []
        func name(_ method: String, _ pattern: String) -> String {
            names.name(method: method, pattern: pattern) {
                made.append("\(method) \(pattern)")
                return "\(method) \(pattern)"
            }
        }
        for _ in 0..<3 {
            #expect(name("GET", kept) == "GET \(kept)")
            #expect(name("GET", sharing) == "GET \(sharing)")
            #expect(name("POST", kept) == "POST \(kept)")
        }
        #expect(made.filter { $0 == "GET \(kept)" }.count == 1)
        #expect(made.filter { $0 == "GET \(sharing)" }.count == 3)
        // Another method is another key, kept in its own slot unless that slot holds another.
        let postSlot = OperationNames.slot(of: kept, method: "POST") % UInt(OperationNames.slotCount)
        let getSlot = OperationNames.slot(of: kept, method: "GET") % UInt(OperationNames.slotCount)
        #expect(made.filter { $0 == "POST \(kept)" }.count == (postSlot == getSlot ? 3 : 1))
    }

    @Test("a route known by its object is kept by identity: another object of the same pattern is another route")
    func keptPerRouteObject() {
        final class Route: Sendable {}
        let names = OperationNames()
        let routes = (0..<40).map { _ in Route() }
        var made = 0
        for _ in 0..<3 {
            for (number, route) in routes.enumerated() {
                let name = names.name(method: "GET", route: route) {
                    made += 1
                    return "GET /items/\(number)"
                }
                #expect(name == "GET /items/\(number)")
            }
        }
        // At most one route per slot is kept; the others are named at each of the three rounds.
        #expect(made <= 40 + 2 * (40 - 1))
        #expect(made >= 40 + 2 * (40 - OperationNames.slotCount))
        #expect(made < 3 * 40)
    }

    @Test("the slot of a pattern is the same for every request of it, and slots spread a service's routes")
    func slotsOfPatterns() {
        let routes = (0..<24).map { "/resource\($0)/{id}" } + ["/", "/health", "/orders/{id}/lines/{line}"]
        let slots = routes.map { OperationNames.slot(of: $0, method: "GET") % UInt(OperationNames.slotCount) }
        #expect(slots == routes.map { OperationNames.slot(of: String($0), method: "GET") % 16 })
        #expect(Set(slots).count >= 8)
    }
}
#endif
