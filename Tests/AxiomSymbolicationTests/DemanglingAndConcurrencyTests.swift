import CAxiomSymbolicationFixtures
import Testing

@testable import AxiomSymbolication

@Suite("Demangling and concurrent use")
struct DemanglingAndConcurrencyTests {
    @Test("Swift names go through swift_demangle")
    func swiftNames() {
        #expect(Demangler.demangle("$s4main3fooyyF") == "main.foo() -> ()")
        #expect(
            Demangler.demangle("$sSi1poiyS2i_SitFZ") == "static Swift.Int.+ infix(Swift.Int, Swift.Int) -> Swift.Int")
    }

    @Test("C++ names go through __cxa_demangle, with LLVM-style clone suffixes")
    func cxxNames() {
        #expect(Demangler.demangle("_ZN3foo3barEv") == "foo::bar()")
        #expect(Demangler.demangle("_ZN3foo3barEv.cold.1") == "foo::bar() (.cold.1)")
    }

    @Test("C names and garbage are returned unchanged")
    func plainNames() {
        #expect(Demangler.demangle("abort") == "abort")
        #expect(Demangler.demangle("$sNotReallyMangled") == "$sNotReallyMangled")
        #expect(Demangler.demangle("_Zgarbage") == "_Zgarbage")
    }

    /// This test binary's path and about `count` addresses spread over its functions, each inside one.
    static func sampledAddresses(_ count: Int) throws -> (path: String, addresses: [UInt64]) {
        var lines = axiom_fixture_lines()
        let returnAddress = axiom_fixture_outer(&lines)
        let module = try #require(LoadedModule.containing(address: returnAddress))
        let symbols = try Symbolicator().functionSymbols(modulePath: module.path).filter { $0.size > 0 }
        let addresses = stride(from: 0, to: symbols.count, by: max(1, symbols.count / count)).map {
            symbols[$0].address + symbols[$0].size / 2
        }
        return (module.path, addresses)
    }

    @Test("One Symbolicator shared by concurrent tasks gives every task the same answers")
    func concurrentUse() async throws {
        let (path, addresses) = try Self.sampledAddresses(64)
        // The reference: another symbolicator, one address after the other, freed before the shared one reads
        // (tests run beside others that measure the process's resident memory).
        let reference = { () -> [[SymbolicatedFrame]?] in
            let alone = Symbolicator()
            return addresses.map { try? alone.symbolicate(modulePath: path, address: $0) }
        }()
        let symbolicator = Symbolicator()
        let results = await withTaskGroup(of: (Int, [[SymbolicatedFrame]?]).self) { group in
            for task in 0..<8 {
                group.addTask {
                    // Each task walks the addresses from a different starting point.
                    let answers = (0..<addresses.count).map { step in
                        let index = (step + task * 7) % addresses.count
                        return try? symbolicator.symbolicate(modulePath: path, address: addresses[index])
                    }
                    return (task, answers)
                }
            }
            var all: [(Int, [[SymbolicatedFrame]?])] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8)
        for (task, answers) in results {
            let expected = (0..<addresses.count).map { reference[($0 + task * 7) % addresses.count] }
            #expect(answers == expected, "task \(task)")
        }
    }
}
