import CAxiomSymbolicationFixtures
import Foundation
import Testing

@testable import AxiomSymbolication

/// The in-place DWARF reader against libdwarf: the same frames (function, file, line, column, inlined chain) for
/// every sampled address.
@Suite("The in-place DWARF reader answers what libdwarf answers")
struct DWARFReaderTests {
    static var testExecutable: String {
        LoadedModule.containing(address: axiom_fixture_return_address())!.path
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fuzz/Corpus/Symbolication").standardized.path

    /// A large Swift release binary with DWARF 4 and 5 from the toolchain, when it is there.
    static let largeBinaryPath = "/opt/swift/usr/bin/sourcekit-lsp"

    /// Start, middle and last byte of every `step`-th function symbol.
    private func sample(_ module: String, count: Int) throws -> [UInt64] {
        let symbols = try Symbolicator().functionSymbols(modulePath: module).filter { $0.size > 0 }
        let step = max(1, symbols.count / max(1, count / 3))
        return stride(from: 0, to: symbols.count, by: step).flatMap { index -> [UInt64] in
            let symbol = symbols[index]
            return [symbol.address, symbol.address + symbol.size / 2, symbol.address + symbol.size - 1]
        }
    }

    private func compare(_ module: String, count: Int) throws {
        let native = Symbolicator(reader: .native)
        let libdwarf = Symbolicator(reader: .libdwarf)
        var differences: [String] = []
        var inlined = 0
        for address in try sample(module, count: count) {
            let ours = try? native.symbolicate(modulePath: module, address: address)
            let theirs = try? libdwarf.symbolicate(modulePath: module, address: address)
            if ours != theirs {
                differences.append(
                    "0x\(String(address, radix: 16)):\n  native   \(ours ?? [])\n  libdwarf \(theirs ?? [])")
            }
            if (ours?.count ?? 0) > 1 { inlined += 1 }
        }
        #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(5).joined(separator: "\n"))")
        #expect(inlined > 0 || count < 100, "no inlined frame among the sampled addresses")
    }

    @Test("Test executable (DWARF 4 from Swift, DWARF 5 from C)")
    func testExecutable() throws {
        try compare(Self.testExecutable, count: 3000)
    }

    @Test(
        "C shared objects: GCC's DWARF 4 and 5, clang's DWARF 5 with a name index",
        arguments: ["sym-dwarf4.so", "sym-dwarf5.so", "sym-dwarf5-O0.so", "sym-names.so"])
    func gccObjects(name: String) throws {
        try compare(Self.corpus + "/" + name, count: 30)
    }

    @Test(
        "A large Swift release binary (sourcekit-lsp)",
        .enabled(if: FileManager.default.fileExists(atPath: largeBinaryPath)))
    func largeBinary() throws {
        try compare(Self.largeBinaryPath, count: 300)
    }

    @Test("A file whose debug sections are compressed is read by libdwarf, with the same answers")
    func compressedSections() throws {
        let source = Self.corpus + "/sym-dwarf5.so"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-compressed-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let compressed = folder.appendingPathComponent("compressed.so").path
        let objcopy = Process()
        objcopy.executableURL = URL(fileURLWithPath: "/usr/bin/objcopy")
        objcopy.arguments = ["--compress-debug-sections=zlib", source, compressed]
        try objcopy.run()
        objcopy.waitUntilExit()
        try #require(objcopy.terminationStatus == 0)
        let image = try ELFImage(path: compressed)
        guard case .unusable = image.sectionBytes(named: ".debug_info") else {
            Issue.record(".debug_info is not compressed")
            return
        }
        #expect(NativeDWARFReader(image: image) == nil)
        let plain = Symbolicator()
        let fromCompressed = Symbolicator()
        for address in try sample(source, count: 30) {
            let expected = try? plain.symbolicate(modulePath: source, address: address)
            let answer = try? fromCompressed.symbolicate(modulePath: compressed, address: address)
            #expect(answer == expected)
        }
    }

    @Test("An initial length: 32-bit, 64-bit, reserved and cut short")
    func initialLength() {
        func read(_ bytes: [UInt8]) -> (length: UInt64, offsetSize: Int)? {
            bytes.withUnsafeBytes { buffer in
                var cursor = DWARFCursor(DWARFSection(base: buffer.baseAddress!, count: buffer.count), at: 0)
                return cursor.initialLength()
            }
        }
        #expect(read([0x10, 0, 0, 0]).map { [$0.length, UInt64($0.offsetSize)] } == [0x10, 4])
        #expect(
            read([0xFF, 0xFF, 0xFF, 0xFF, 0x20, 0, 0, 0, 0, 0, 0, 1]).map { [$0.length, UInt64($0.offsetSize)] }
                == [0x0100_0000_0000_0020, 8])
        #expect(read([0xF0, 0xFF, 0xFF, 0xFF]) == nil)  // reserved
        #expect(read([0xFE, 0xFF, 0xFF, 0xFF]) == nil)
        #expect(read([0x10, 0, 0]) == nil)  // cut short
        #expect(read([0xFF, 0xFF, 0xFF, 0xFF, 0x20, 0, 0]) == nil)
    }

    @Test("Reads past a section's end fail the cursor and return zero, never trap")
    func cursorBounds() {
        let bytes: [UInt8] = [0x81, 0x80, 0x80, 0x01, 0x02, 0x7F]
        bytes.withUnsafeBytes { buffer in
            let section = DWARFSection(base: buffer.baseAddress!, count: buffer.count)
            var cursor = DWARFCursor(section, at: 0)
            #expect(cursor.uleb() == 0x20_0001)
            #expect(cursor.u8() == 2)
            #expect(cursor.sleb() == -1)
            #expect(!cursor.failed)
            #expect(cursor.u32() == 0)
            #expect(cursor.failed)
            var unterminated = DWARFCursor(section, at: 0)
            #expect(unterminated.cString() == nil)
            #expect(unterminated.failed)
            var outside = DWARFCursor(section, at: 7)
            #expect(outside.failed)
            outside.skip(Int.max)
            #expect(outside.u8() == 0)
        }
    }
}
