import AxiomSymbolication
import CAxiomSymbolicationFixtures
import Testing

@Suite("Symbolicator on known code")
struct SymbolicatorTests {
    let symbolicator = Symbolicator()

    @Test("Inlined C code yields innermost callee first, the physical function last")
    func inlinedFrames() throws {
        var lines = axiom_fixture_lines()
        let returnAddress = axiom_fixture_outer(&lines)
        let module = try #require(LoadedModule.containing(address: returnAddress))
        let frames = try symbolicator.symbolicate(
            pc: UInt64(returnAddress), loadBias: module.loadBias, modulePath: module.path, isReturnAddress: true)
        // The fixture's layout (two inlined calls below a real one) is what a debug build produces, the build
        // `swift test` uses; an optimized build may fold it differently.
        try #require(frames.count == 3, "\(frames)")
        #expect(frames.map(\.function) == ["innermost", "inner", "axiom_fixture_outer"])
        #expect(frames.map(\.isInlined) == [true, true, false])
        #expect(frames.map(\.line) == [Int(lines.innermost_call), Int(lines.inner_call), Int(lines.outer_call)])
        #expect(frames.allSatisfy { $0.file?.hasSuffix("Tests/CAxiomSymbolicationFixtures/fixtures.c") == true })
        #expect(frames.allSatisfy { $0.column != nil })
        #expect(frames[0].symbolOffset == nil)
        #expect(frames[2].symbolOffset != nil && frames[2].symbolOffset! > 0)
    }

    @Test("A plain C function start resolves to its name and its first line")
    func plainCFunction() throws {
        var line: Int32 = 0
        let address = axiom_fixture_plain_function_address(&line)
        let module = try #require(LoadedModule.containing(address: address))
        let frames = try symbolicator.symbolicate(
            pc: UInt64(address), loadBias: module.loadBias, modulePath: module.path, isReturnAddress: false)
        let frame = try #require(frames.last)
        #expect(frames.count == 1)
        #expect(frame.function == "plain_function")
        #expect(frame.symbolOffset == 0)
        #expect(frame.file?.hasSuffix("fixtures.c") == true)
        // The first row of a function is its signature line, just above the `return` line the fixture reports.
        #expect(frame.line == Int(line) - 1)
    }

    @Test("A Swift function is found, demangled, with this file and the line of the call")
    func swiftFunction() throws {
        let (address, line) = swiftFixtureReturnAddress()
        let module = try #require(LoadedModule.containing(address: address))
        let frames = try symbolicator.symbolicate(
            pc: UInt64(address), loadBias: module.loadBias, modulePath: module.path, isReturnAddress: true)
        let frame = try #require(frames.last)
        #expect(frame.function?.contains("swiftFixtureReturnAddress()") == true)
        #expect(frame.mangledName?.hasPrefix("$s") == true)
        #expect(frame.file == #filePath)
        #expect(frame.line == line)
        #expect(frame.isInlined == false)
    }

    @Test("Repeated lookups return the same frames")
    func repeatedLookups() throws {
        var lines = axiom_fixture_lines()
        let returnAddress = axiom_fixture_outer(&lines)
        let module = try #require(LoadedModule.containing(address: returnAddress))
        let address = UInt64(returnAddress) - module.loadBias - 1
        let first = try symbolicator.symbolicate(modulePath: module.path, address: address)
        let second = try symbolicator.symbolicate(modulePath: module.path, address: address)
        #expect(first == second)
        let fresh = try Symbolicator().symbolicate(modulePath: module.path, address: address)
        #expect(first == fresh)
    }

    @Test("The build-id of the test executable matches the one readelf reports")
    func buildID() throws {
        let module = try #require(LoadedModule.containing(address: axiom_fixture_return_address()))
        let buildID = try #require(elfBuildID(path: module.path))
        #expect(buildID.count >= 16)
        #expect(buildID.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(elfBuildID(path: "/nonexistent/file") == nil)
    }
}

@inline(never)
func swiftFixtureReturnAddress() -> (UInt, Int) {
    let line = #line + 1
    let address = axiom_fixture_return_address()
    return (address, line)
}
