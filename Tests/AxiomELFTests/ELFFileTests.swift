import Foundation
import Testing

@testable import AxiomELF

#if canImport(Glibc)
import Glibc
#endif

/// The reader's failure words on bytes that are not a whole ELF64 little-endian file, and its build-id note reader,
/// through both sources of bytes: a mapping and a descriptor.
@Suite struct ELFFileTests {
    /// Reads `bytes` as an ELF file from memory and from an unlinked temporary file through its descriptor, and
    /// checks that both readers agree; the result of the read from memory.
    func read<Result: Equatable>(
        _ bytes: [UInt8], _ body: (any ELFReading) throws(ELFError) -> Result
    ) throws -> Swift.Result<Result, ELFError> {
        let mapped = bytes.withUnsafeBytes { raw in
            Swift.Result { () throws(ELFError) in
                try body(
                    try ELFFile(
                        MappedELFBytes(base: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!, count: raw.count)))
            }
        }
        var template = Array((NSTemporaryDirectory() + "/axiom-elf-test-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        try #require(descriptor >= 0)
        unlink(template)
        defer { close(descriptor) }
        try #require(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        let read = Swift.Result { () throws(ELFError) in
            try body(try ELFFile(DescriptorELFBytes(descriptor: descriptor, count: bytes.count)))
        }
        #expect(read == mapped, "the descriptor and the mapping disagree")
        return mapped
    }

    func failure(_ bytes: [UInt8]) throws -> ELFError? {
        if case .failure(let error) = try read(bytes, { _ in true }) { return error }
        return nil
    }

    /// A 64-byte ELF64 little-endian header of a shared object for x86_64, with no tables.
    static var header: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes.replaceSubrange(0..<7, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1])
        bytes[16] = 3
        bytes[18] = 62
        return bytes
    }

    @Test func anEmptyOrTextFileIsNotELF() throws {
        #expect(try failure([]) == .notELF)
        #expect(try failure([0x7F, 0x45]) == .notELF)
        #expect(try failure(Array("just some text\n".utf8)) == .notELF)
        #expect(try failure(Array(Self.header.reversed())) == .notELF)
    }

    @Test func aHeaderCutShortIsTruncated() throws {
        #expect(try failure(Array(Self.header.prefix(4))) == .truncated(size: 4))
        #expect(try failure(Array(Self.header.prefix(5))) == .truncated(size: 5))
        #expect(try failure(Array(Self.header.prefix(63))) == .truncated(size: 63))
        #expect(try failure(Self.header) == nil)
    }

    @Test func theOtherClassOrByteOrderIsUnsupported() throws {
        var elf32 = Self.header
        elf32[4] = 1
        #expect(try failure(Array(elf32.prefix(52))) == .unsupportedClass(1), "an ELF32 header is 52 bytes")
        #expect(ELFError.unsupportedClass(1).description == "32-bit ELF")
        elf32[4] = 0
        #expect(try failure(elf32) == .unsupportedClass(0))
        var bigEndian = Self.header
        bigEndian[5] = 2
        #expect(try failure(bigEndian) == .unsupportedByteOrder(2))
        #expect(ELFError.unsupportedByteOrder(2).description == "big-endian ELF")
    }

    @Test func aBareHeaderHasNoTablesAndNoBuildID() throws {
        let result = try read(Self.header) { file throws(ELFError) in
            [try file.programHeaderCount(), try file.sectionHeaderCount(), file.buildIDBytes() == nil ? 0 : 1]
        }
        #expect(result == .success([0, 0, 0]))
    }

    @Test func tablesOutsideTheFileAreMalformed() throws {
        var bytes = Self.header
        bytes.set(UInt64(0x10000), at: 40)  // e_shoff
        bytes.set(UInt16(64), at: 58)  // e_shentsize
        bytes.set(UInt16(3), at: 60)  // e_shnum
        #expect(
            try read(bytes) { file throws(ELFError) in try file.sectionHeaderCount() }
                == .failure(.malformed("the section headers lie past the end of the file")))
        bytes.set(UInt64(0), at: 40)
        bytes.set(UInt64(64), at: 32)  // e_phoff: right after the header, where the file ends
        bytes.set(UInt16(56), at: 54)
        bytes.set(UInt16(2), at: 56)
        #expect(
            try read(bytes) { file throws(ELFError) in try file.programHeaderCount() }
                == .failure(.malformed("program header table outside the file")))
        bytes.set(UInt16(8), at: 54)  // e_phentsize smaller than an entry
        #expect(
            try read(bytes) { file throws(ELFError) in try file.programHeaderCount() }
                == .failure(.malformed("program header size 8")))
    }

    @Test func extendedSectionCountsThatLeaveTheFileAreMalformed() throws {
        var bytes = Self.header + [UInt8](repeating: 0, count: 64)
        bytes.set(UInt64(64), at: 40)
        bytes.set(UInt16(64), at: 58)
        bytes.set(UInt16(0), at: 60)  // the count is section 0's sh_size
        bytes.set(UInt64.max, at: 64 + 32)
        let result = try read(bytes) { file throws(ELFError) in try file.sectionHeaderCount() }
        guard case .failure(.malformed) = result else {
            Issue.record("\(result)")
            return
        }
    }

    /// The header, one PT_NOTE program header, and `notes` after it.
    static func withNotes(_ notes: [UInt8]) -> [UInt8] {
        var bytes = header + [UInt8](repeating: 0, count: 56)
        bytes.set(UInt64(64), at: 32)
        bytes.set(UInt16(56), at: 54)
        bytes.set(UInt16(1), at: 56)
        bytes.set(UInt32(4), at: 64)  // PT_NOTE
        bytes.set(UInt64(120), at: 64 + 8)  // p_offset
        bytes.set(UInt64(notes.count), at: 64 + 32)  // p_filesz
        return bytes + notes
    }

    static func note(type: UInt32, name: [UInt8], description: [UInt8]) -> [UInt8] {
        var note = [UInt8](repeating: 0, count: 12)
        note.set(UInt32(name.count), at: 0)
        note.set(UInt32(description.count), at: 4)
        note.set(type, at: 8)
        let pad = { (bytes: [UInt8]) in bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4) }
        return note + pad(name) + pad(description)
    }

    @Test func theBuildIDIsTheGNUNoteOfTypeThree() throws {
        let id: [UInt8] = [0xDE, 0xAD, 0x01, 0x02, 0x0F]
        let gnu = Array("GNU\0".utf8)
        let notes =
            Self.note(type: 1, name: gnu, description: [1, 2, 3, 4])
            + Self.note(type: 3, name: Array("GNV\0".utf8), description: [9])
            + Self.note(type: 3, name: gnu, description: id)
        #expect(try read(Self.withNotes(notes)) { $0.buildIDBytes() } == .success(id))
        #expect(id.lowercaseHex == "dead01020f")
        // Cut inside the last note: the notes do not add up, and nothing is read past them.
        #expect(try read(Self.withNotes(Array(notes.dropLast(4)))) { $0.buildIDBytes() } == .success(nil))
        // An empty description is no build-id.
        #expect(
            try read(Self.withNotes(Self.note(type: 3, name: gnu, description: []))) { $0.buildIDBytes() }
                == .success(nil))
        // Sizes near 2^32 neither overflow nor read past the notes.
        var huge = Self.note(type: 3, name: gnu, description: id)
        huge.set(UInt32.max, at: 4)
        #expect(try read(Self.withNotes(huge)) { $0.buildIDBytes() } == .success(nil))
    }

    @Test func aSegmentPastTheEndOfTheFileHasNoBuildID() throws {
        var bytes = Self.withNotes([])
        bytes.set(UInt64.max - 4, at: 64 + 8)
        bytes.set(UInt64(16), at: 64 + 32)
        #expect(try read(bytes) { $0.buildIDBytes() } == .success(nil))
    }
}

/// An `ELFFile` over either source, for tests that read both.
protocol ELFReading {
    func programHeaderCount() throws(ELFError) -> Int
    func sectionHeaderCount() throws(ELFError) -> Int
    func buildIDBytes() -> [UInt8]?
}

extension ELFFile: ELFReading {
    func programHeaderCount() throws(ELFError) -> Int { try programHeaders().count }
    func sectionHeaderCount() throws(ELFError) -> Int { try sectionHeaders().count }
    func buildIDBytes() -> [UInt8]? { buildID() }
}

extension [UInt8] {
    /// Writes `value` little-endian at `offset`.
    mutating func set<Value: FixedWidthInteger>(_ value: Value, at offset: Int) {
        for index in 0..<(Value.bitWidth / 8) {
            self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
        }
    }
}
