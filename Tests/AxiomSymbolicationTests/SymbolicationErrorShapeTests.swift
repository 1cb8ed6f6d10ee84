import Testing

@testable import AxiomSymbolication

@Suite("SymbolicationError's shape")
struct SymbolicationErrorShapeTests {
    @Test("a factory gives its code and records where it was called")
    func factoryGivesCodeAndThrowSite() {
        let line: UInt = #line + 1
        let error = SymbolicationError.buildIDMismatch("/bin/x", fileBuildID: "aa", report: "bb")
        #expect(error.code == .buildIDMismatch)
        #expect(error.code.name == "buildIDMismatch")
        #expect(error.modulePath == "/bin/x")
        #expect(error.message.contains("the file has aa, the report bb"))
        #expect(error.throwSite.file == #fileID)
        #expect(error.throwSite.line == line)
    }

    @Test("every code is listed once, named as before")
    func everyCodeNamed() {
        #expect(
            SymbolicationError.Code.all.map(\.name) == [
                "fileNotFound", "unreadableFile", "notELF", "unsupportedELF", "malformedELF", "noSymbolInformation",
                "dwarfError", "buildIDMismatch",
            ])
        #expect(String(describing: SymbolicationError.Code.dwarfError) == "dwarfError")
    }

    @Test("a missing file is thrown with its code from the reader")
    func thrownFromTheReader() {
        #expect {
            try Symbolicator().symbolicate(modulePath: "/nonexistent/module.so", address: 0x10)
        } throws: { error in
            guard let error = error as? SymbolicationError else { return false }
            return error.code == .fileNotFound && error.throwSite.file.hasPrefix("AxiomSymbolication/")
        }
    }
}
