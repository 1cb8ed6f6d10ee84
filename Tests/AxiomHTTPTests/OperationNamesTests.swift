import AxiomHTTP
import Testing

/// A server adapter names its events by method and route once, and then reads the name without making it again.
@Suite("Event names of routes")
struct OperationNamesTests {
    @Test("a name is made once per method and route; a route whose slot holds another's is named each time")
    func keptPerMethodAndRoute() {
        let names = OperationNames<String>()
        var made: [String] = []
        func name(_ method: String, _ route: String, slot: UInt) -> String {
            names.name(method: method, route: route, slot: slot) {
                made.append("\(method) \(route)")
                return "\(method) \(route)"
            }
        }
        for _ in 0..<3 {
            #expect(name("GET", "/orders/{id}", slot: 5) == "GET /orders/{id}")
            // The same slot, another method, then another route: answered right, made each time.
            #expect(name("POST", "/orders/{id}", slot: 5) == "POST /orders/{id}")
            #expect(name("GET", "/items/{id}", slot: 5) == "GET /items/{id}")
            #expect(name("GET", "/items/{id}", slot: 6) == "GET /items/{id}")
        }
        #expect(made.filter { $0 == "GET /orders/{id}" }.count == 1)
        #expect(made.filter { $0 == "POST /orders/{id}" }.count == 3)
        // Slot 5 holds the orders' GET; the items' route was kept in slot 6 at its first request there.
        #expect(made.filter { $0 == "GET /items/{id}" }.count == 4)
    }

    @Test("the slot of a pattern is the same for every request of it, and slots spread a service's routes")
    func slotsOfPatterns() {
        let routes = (0..<24).map { "/resource\($0)/{id}" } + ["/", "/health", "/orders/{id}/lines/{line}"]
        let slots = routes.map { OperationNames.slot(of: $0, method: "GET") % UInt(OperationNames<String>.slotCount) }
        #expect(slots == routes.map { OperationNames.slot(of: String($0), method: "GET") % 16 })
        #expect(Set(slots).count >= 8)
    }
}
