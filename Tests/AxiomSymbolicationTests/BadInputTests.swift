import AxiomSymbolication
import CAxiomSymbolicationFixtures
import Foundation
import Testing

@Suite("Symbolicator on bad input")
struct BadInputTests {
    let symbolicator = Symbolicator()

    private func error(_ path: String, address: UInt64 = 0x1000) -> SymbolicationError? {
        do {
            _ = try symbolicator.symbolicate(modulePath: path, address: address)
            return nil
        } catch {
            return error
        }
    }

    private func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "axiom-sym-\(getpid())-\(name)"
        ).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("A missing file is reported as such")
    func missingFile() {
        let error = error("/nonexistent/axiom/libnothing.so")
        #expect(error?.code == .fileNotFound)
        #expect(error?.description.contains("/nonexistent/axiom/libnothing.so") == true)
    }

    @Test("A text file is not ELF")
    func textFile() throws {
        let path = try temporaryFile("text.txt", Array("hello, this is not an executable\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(error(path)?.code == .notELF)
        let tiny = try temporaryFile("tiny", [0x41])
        defer { try? FileManager.default.removeItem(atPath: tiny) }
        #expect(error(tiny)?.code == .notELF)
    }

    @Test("A directory is unreadable, not a crash")
    func directory() {
        #expect(error("/tmp")?.code == .unreadableFile)
    }

    @Test("A truncated ELF file gives a clear error at every cut")
    func truncatedELF() throws {
        let module = try #require(LoadedModule.containing(address: axiom_fixture_return_address()))
        let whole = try Data(contentsOf: URL(fileURLWithPath: module.path))
        for length in [5, 16, 63, 64, 200, 4096, whole.count / 2] {
            let path = try temporaryFile("truncated-\(length)", Array(whole.prefix(length)))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let error = error(path, address: 0x1000)
            #expect(error != nil, "cut at \(length)")
            if length < 64 { #expect(error?.code == .malformedELF, "cut at \(length)") }
            if let error { #expect(!error.message.isEmpty) }
        }
    }

    @Test("An address no symbol covers is an error, not an empty answer")
    func uncoveredAddress() throws {
        let module = try #require(LoadedModule.containing(address: axiom_fixture_return_address()))
        #expect(error(module.path, address: 0x10)?.code == .noSymbolInformation)
    }
}
