import AxiomSymbolication
import CAxiomSymbolicationFixtures
import Foundation
import Testing

@Suite("Inlined Swift runtime failure frames")
struct OverflowTrapTests {
    let symbolicator = Symbolicator()

    /// The 1-based line of the fixtures file holding `marker` (only once), so the test cannot drift from it.
    private func line(of marker: String) throws -> Int {
        let source = try String(contentsOfFile: overflowTrapFixturesPath(), encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let matches = lines.indices.filter { lines[$0].hasSuffix("// " + marker) }
        try #require(matches.count == 1)
        return matches[0] + 1
    }

    /// The frames of every address of the function whose symbol contains `name` that lie in an inlined
    /// runtime failure frame.
    private func trapFrames(function name: String) throws -> [[SymbolicatedFrame]] {
        let module = try #require(LoadedModule.containing(address: axiom_fixture_return_address()))
        let symbols = try symbolicator.functionSymbols(modulePath: module.path).filter {
            $0.name.hasPrefix("$s") && $0.name.contains(name) && $0.size > 0
        }
        let symbol = try #require(symbols.count == 1 ? symbols.first : nil)
        var result: [[SymbolicatedFrame]] = []
        for address in symbol.address..<(symbol.address + symbol.size) {
            let frames = try symbolicator.symbolicate(modulePath: module.path, address: address)
            if frames.first?.function?.hasPrefix("Swift runtime failure") == true { result.append(frames) }
        }
        return result
    }

    private func check(function name: String, marker: String) throws {
        let line = try line(of: marker)
        let traps = try trapFrames(function: name)
        #expect(!traps.isEmpty, "no address of \(name) lies in an inlined runtime failure frame")
        for frames in traps {
            #expect(frames.count == 2)
            #expect(frames.first?.function == "Swift runtime failure: arithmetic overflow")
            #expect(frames.map(\.isInlined) == [true, false])
            let caller = try #require(frames.last)
            #expect(caller.function?.contains(name) == true)
            #expect(caller.mangledName?.hasPrefix("$s") == true)
            #expect(caller.file == overflowTrapFixturesPath())
            #expect(caller.line == line)
            #expect(caller.column != nil)
        }
    }

    @Test("A free function's overflow trap is an inlined frame called from the arithmetic's line")
    func freeFunction() throws {
        #expect(overflowFixtureSum([1, 2, 3]) == 6)
        try check(function: "overflowFixtureSum", marker: "overflow-trap: sum")
    }

    @Test("A method of an extension of an imported type keeps its inlined trap frame")
    func extensionOfImportedType() throws {
        #expect(7.overflowFixtureTripled() == 21)
        try check(function: "overflowFixtureTripled", marker: "overflow-trap: tripled")
    }
}
