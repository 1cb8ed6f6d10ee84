import CAxiomSymbolicationFixtures
import Foundation
import Testing

@testable import AxiomSymbolication

#if canImport(Glibc)
import Glibc
#endif

@Suite("Symbolicator on bad input")
struct BadInputTests {
    let symbolicator = Symbolicator()

    private func error(
        _ path: String, address: UInt64 = 0x1000, with symbolicator: Symbolicator? = nil
    ) -> SymbolicationError? {
        do {
            _ = try (symbolicator ?? self.symbolicator).symbolicate(modulePath: path, address: address)
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

    /// A small C shared object with DWARF 5, kept as a seed of the Symbolication fuzz target.
    static let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus/Symbolication/sym-dwarf5.so").path

    @Test("An executable section whose address + size passes 2^64 is read, not a trap")
    func sectionEndOverflow() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.seed)))
        let good = try temporaryFile("good.so", bytes)
        defer { try? FileManager.default.removeItem(atPath: good) }
        let symbols = try symbolicator.functionSymbols(modulePath: good)
        let entry = try #require(symbols.first { $0.name == "axiom_seed_entry" })
        let text = try #require(bytes.sectionHeader(named: ".text"))
        bytes.setU64(at: text + 32, .max - 0x10)  // sh_size: sh_addr + sh_size wraps past 2^64
        let path = try temporaryFile("wrapping-text.so", bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let frames = try Symbolicator().symbolicate(modulePath: path, address: entry.address)
        #expect(frames.last?.function == "axiom_seed_entry")
    }

    @Test("Another class or byte order is unsupported ELF, said in words")
    func unsupportedELF() throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.seed)))
        for (position, value, words): (Int, UInt8, String) in [(4, 1, "32-bit ELF"), (5, 2, "big-endian ELF")] {
            var bytes = whole
            bytes[position] = value
            let path = try temporaryFile("unsupported-\(position).so", bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let failure = error(path)
            #expect(failure?.code == .unsupportedELF)
            #expect(failure?.message == "unsupported ELF file: \(words)")
        }
    }

    @Test("A module without section headers has its build-id read from its PT_NOTE segment")
    func buildIDWithoutSectionHeaders() throws {
        let id = try #require(elfBuildID(path: Self.seed))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.seed)))
        bytes.setU64(at: 0x28, 0)  // e_shoff
        let path = try temporaryFile("no-section-headers.so", bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(elfBuildID(path: path) == id)
    }

    @Test("A FIFO is refused as not a regular file, without waiting for a writer")
    func fifo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-sym-\(getpid())-fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        #expect(error(path)?.code == .unreadableFile)
        #expect(elfBuildID(path: path) == nil)
    }

    @Test("Section headers that overflow or leave the file are malformed ELF")
    func sectionHeaderOverflow() throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.seed)))
        for (name, patch): (String, (inout [UInt8]) -> Void) in [
            ("shoff-all-ones", { $0.setU64(at: 0x28, .max) }),
            ("shoff-near-end", { $0.setU64(at: 0x28, UInt64($0.count - 8)) }),
            (
                "shnum-extended",
                { bytes in  // e_shnum 0: the count is section 0's sh_size
                    bytes[0x3C] = 0
                    bytes[0x3D] = 0
                    bytes.setU64(at: Int(bytes.u64(at: 0x28)) + 32, .max)
                }
            ),
        ] {
            var bytes = whole
            patch(&bytes)
            let path = try temporaryFile(name, bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(error(path)?.code == .malformedELF, "\(name)")
        }
    }

    @Test(
        "A bad .debug_rnglists header: libdwarf is not given the file (it would free the header twice); the in-place reader reads the lists it points to, bounded"
    )
    func rangeListHeaders() throws {
        // Found by the Symbolication fuzz target: libdwarf 20210528 frees a range-list header it cannot read and
        // then frees it again (Tests/Fuzz/Corpus/Symbolication/crash-rnglists-double-free.so). libdwarf still reads
        // files whose debug sections are compressed.
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.seed)))
        let header = try #require(whole.sectionHeader(named: ".debug_rnglists"))
        let start = Int(whole.u64(at: header + 24))
        let size = Int(whole.u64(at: header + 32))
        let libdwarf = Symbolicator(reader: .libdwarf)
        let symbols = try symbolicator.functionSymbols(modulePath: Self.seed)
        for (name, patch): (String, (inout [UInt8]) -> Void) in [
            ("zeroed", { $0.replaceSubrange(start..<(start + size), with: [UInt8](repeating: 0, count: size)) }),
            ("version-4", { $0[start + 4] = 4 }),
            ("address-size-3", { $0[start + 6] = 3 }),
            ("longer-than-section", { $0[start] = 0xF0 }),
            ("cut-after-length", { $0.setU64(at: header + 32, 5) }),
        ] {
            var bytes = whole
            patch(&bytes)
            let path = try temporaryFile("rnglists-\(name).so", bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let failure = error(path, with: libdwarf)
            #expect(failure?.code == .dwarfError, "\(name)")
            #expect(failure?.message.contains(".debug_rnglists") == true, "\(name)")
            // The in-place reader never reads the header; every function is still named (by DWARF or .symtab).
            let native = Symbolicator()
            for symbol in symbols {
                let frames = try native.symbolicate(modulePath: path, address: symbol.address)
                #expect(frames.last?.function != nil, "\(name)")
            }
        }
        let fuzzed = URL(fileURLWithPath: Self.seed).deletingLastPathComponent()
            .appendingPathComponent("crash-rnglists-double-free.so").path
        #expect(error(fuzzed, with: libdwarf)?.code == .dwarfError)
        for symbol in symbols {
            #expect(try Symbolicator().symbolicate(modulePath: fuzzed, address: symbol.address).last?.function != nil)
        }
    }

    @Test("Every input the fuzzer once failed on is answered with frames or an error")
    func fuzzFindings() throws {
        // crash-rnglists-double-free: libdwarf freed a range-list header twice. leak-highpc-*: libdwarf lost an
        // error it made reading DW_AT_high_pc (leaks, seen only under the fuzzer's sanitizer).
        let corpus = URL(fileURLWithPath: Self.seed).deletingLastPathComponent()
        for name in ["crash-rnglists-double-free.so", "leak-highpc-form.so", "leak-highpc-read.so"] {
            let path = corpus.appendingPathComponent(name).path
            let symbolicator = Symbolicator()
            let symbols = (try? symbolicator.functionSymbols(modulePath: path)) ?? []
            for address in symbols.map(\.address) + [0x1000] {
                do {
                    #expect(!(try symbolicator.symbolicate(modulePath: path, address: address)).isEmpty, "\(name)")
                } catch {
                    #expect(!error.message.isEmpty, "\(name)")
                }
            }
        }
    }

    @Test(
        "Damaged DWARF is read bounded: each of the first 64 bytes of every debug section set to 0, 2, 0x7F, 0x80, 0xFF",
        arguments: ["sym-dwarf4.so", "sym-dwarf5.so"])
    func damagedDebugSections(name: String) throws {
        // Lengths, versions, header sizes, counts and forms at the start of each section: a line table of length 2
        // once made the in-place reader subtract past its end.
        let path = URL(fileURLWithPath: Self.seed).deletingLastPathComponent().appendingPathComponent(name).path
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let addresses = try symbolicator.functionSymbols(modulePath: path).map(\.address)
        let file = try temporaryFile("damaged-\(name)", whole)
        defer { try? FileManager.default.removeItem(atPath: file) }
        for section in [
            ".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str", ".debug_rnglists",
            ".debug_ranges", ".debug_addr", ".debug_str_offsets",
        ] {
            guard let header = whole.sectionHeader(named: section) else { continue }
            let start = Int(whole.u64(at: header + 24))
            let size = Int(whole.u64(at: header + 32))
            for position in start..<(start + min(size, 64)) {
                for value: UInt8 in [0, 2, 0x7F, 0x80, 0xFF] where whole[position] != value {
                    var bytes = whole
                    bytes[position] = value
                    try Data(bytes).write(to: URL(fileURLWithPath: file))
                    let fresh = Symbolicator()
                    for address in addresses {
                        do {
                            #expect(!(try fresh.symbolicate(modulePath: file, address: address)).isEmpty)
                        } catch {
                            #expect(!error.message.isEmpty)
                        }
                    }
                }
            }
        }
    }

    @Test("An address no symbol covers is an error, not an empty answer")
    func uncoveredAddress() throws {
        let module = try #require(LoadedModule.containing(address: axiom_fixture_return_address()))
        #expect(error(module.path, address: 0x10)?.code == .noSymbolInformation)
    }
}

extension [UInt8] {
    // Little-endian ELF64 fields, for patching a copy of a module.
    func u64(at offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[offset + $1]) << (8 * $1) } }
    func u32(at offset: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[offset + $1]) << (8 * $1) } }
    func u16(at offset: Int) -> Int { Int(self[offset]) | Int(self[offset + 1]) << 8 }
    mutating func setU64(at offset: Int, _ value: UInt64) {
        for index in 0..<8 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// The file offset of the section header called `name`.
    func sectionHeader(named name: String) -> Int? {
        let table = Int(u64(at: 0x28))
        let size = u16(at: 0x3A)
        let names = table + u16(at: 0x3E) * size
        let strings = Int(u64(at: names + 24))
        return (0..<u16(at: 0x3C)).map { table + $0 * size }.first { header in
            let start = strings + Int(u32(at: header))
            let end = self[start...].firstIndex(of: 0) ?? start
            return String(decoding: self[start..<end], as: UTF8.self) == name
        }
    }
}
