/// An ELF64 little-endian file, read from bytes the caller provides: its header, program headers, section headers,
/// symbol tables and GNU build-id note.
///
/// Every offset and size read from the file is checked against the file before it is used, and every sum of them
/// for overflow: a truncated, corrupt or hostile file is an ``ELFError`` (or a missing value), never a trap. The
/// reader keeps nothing but the header; each table is read when asked for.
package struct ELFFile<Bytes: ELFBytes> {
    /// Where the bytes come from.
    package let bytes: Bytes
    /// The ELF header.
    package let header: ELFHeader

    /// Reads the ELF header of `bytes`: the magic, then the class and byte order, then the rest of the header.
    package init(_ bytes: Bytes) throws(ELFError) {
        guard bytes.withBytes(at: 0, count: 4, { $0.u32(0) }) == 0x464C_457F else { throw .notELF }
        guard let ident = bytes.withBytes(at: 4, count: 2, { ($0[0], $0[1]) }) else {
            throw .truncated(size: bytes.count)
        }
        guard ident.0 == 2 else { throw .unsupportedClass(ident.0) }
        guard ident.1 == 1 else { throw .unsupportedByteOrder(ident.1) }
        guard let header = bytes.withBytes(at: 0, count: 64, ELFHeader.init) else {
            throw .truncated(size: bytes.count)
        }
        self.bytes = bytes
        self.header = header
    }

    /// Calls `body` with `count` bytes at `offset` (values read from the file); nil when they leave it.
    package func withBytes<Result>(
        at offset: UInt64, count: UInt64, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        guard let offset = Int(exactly: offset), let count = Int(exactly: count) else { return nil }
        return bytes.withBytes(at: offset, count: count, body)
    }

    /// Calls `body` with the bytes of `section` in the file; nil when they leave it.
    package func withContents<Result>(
        of section: ELFSectionHeader, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        withBytes(at: section.offset, count: section.size, body)
    }

    // MARK: Headers

    /// The program headers; empty when the file has none.
    ///
    /// - Throws: ``ELFError/malformed(_:)`` when the entries are too small or the table leaves the file.
    package func programHeaders() throws(ELFError) -> [ELFProgramHeader] {
        guard header.programHeaderOffset != 0, header.programHeaderCount != 0 else { return [] }
        let size = Int(header.programHeaderSize)
        let count = Int(header.programHeaderCount)
        guard size >= 56 else { throw .malformed("program header size \(size)") }
        let table = withBytes(at: header.programHeaderOffset, count: UInt64(count * size)) { raw in
            (0..<count).map { ELFProgramHeader(raw, at: $0 * size) }
        }
        guard let table else { throw .malformed("program header table outside the file") }
        return table
    }

    /// The section headers; empty when the file has none (`e_shoff` 0). With more than 0xff00 sections the count
    /// is section 0's `sh_size`.
    ///
    /// - Throws: ``ELFError/malformed(_:)`` when the entries are too small or the table leaves the file.
    package func sectionHeaders() throws(ELFError) -> [ELFSectionHeader] {
        let offset = header.sectionHeaderOffset
        guard offset != 0 else { return [] }
        let size = UInt64(header.sectionHeaderSize)
        guard size >= 64 else { throw .malformed("section header size \(size)") }
        guard bytes.contains(offset, size) else { throw .malformed("the section headers lie past the end of the file") }
        var count = UInt64(header.sectionHeaderCount)
        if count == 0 { count = withBytes(at: offset + 32, count: 8) { $0.u64(0) } ?? 0 }
        let (tableSize, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, count < 1 << 20, bytes.contains(offset, tableSize),
            let table = withBytes(
                at: offset, count: tableSize,
                { raw in
                    (0..<Int(count)).map { ELFSectionHeader(raw, at: $0 * Int(size)) }
                })
        else { throw .malformed("\(count) section headers do not fit in the file") }
        return table
    }

    /// The names of `sections` (as ``sectionHeaders()`` read them), from the section name table; "" for a name
    /// that is not in it.
    package func sectionNames(_ sections: [ELFSectionHeader]) -> [String] {
        var names = [String](repeating: "", count: sections.count)
        var index = Int(header.sectionNamesIndex)
        if index == 0xFFFF, let first = sections.first { index = Int(first.link) }  // SHN_XINDEX
        guard index < sections.count else { return names }
        _ = withContents(of: sections[index]) { table in
            for (position, section) in sections.enumerated() {
                if let name = table.cString(at: Int(section.nameOffset)) {
                    names[position] = String(decoding: name, as: UTF8.self)
                }
            }
        }
        return names
    }

    // MARK: Symbols

    /// Calls `body` with the entries of the symbol table `section` (`SHT_SYMTAB` or `SHT_DYNSYM`); nil when its
    /// entries are smaller than a symbol or it leaves the file.
    package func withSymbols<Result>(in section: ELFSectionHeader, _ body: (ELFSymbolTable) -> Result) -> Result? {
        guard section.entrySize >= 24, let entrySize = Int(exactly: section.entrySize) else { return nil }
        return withContents(of: section) { body(ELFSymbolTable(raw: $0, entrySize: entrySize)) }
    }

    // MARK: Build-id

    /// The GNU build-id (the `NT_GNU_BUILD_ID` note): from the `SHT_NOTE` sections (a separate debug file keeps
    /// them), else from the `PT_NOTE` segments (a file without section headers); nil when there is none.
    ///
    /// - Parameter sections: the section headers when the caller has them already.
    package func buildID(sections: [ELFSectionHeader]? = nil) -> [UInt8]? {
        for section in sections ?? (try? sectionHeaders()) ?? []
        where section.type == ELFSectionHeader.note && section.size <= Self.maxNotes {
            if let id = withContents(of: section, { ELFNotes.buildID(in: $0).map(Array.init) }) ?? nil { return id }
        }
        for segment in (try? programHeaders()) ?? []
        where segment.type == ELFProgramHeader.note && segment.fileSize <= Self.maxNotes {
            if let id = withBytes(
                at: segment.offset, count: segment.fileSize, { ELFNotes.buildID(in: $0).map(Array.init) })
                ?? nil
            {
                return id
            }
        }
        return nil
    }

    /// Larger note sections or segments are not read: far above any real one.
    static var maxNotes: UInt64 { 1 << 20 }
}

/// The fields of the 64-byte ELF64 header that the reader uses.
package struct ELFHeader: Sendable, Hashable {
    /// `e_type`: 1 relocatable, 2 executable, 3 shared object (or position-independent executable), 4 core.
    package var type: UInt16
    /// `e_machine`: 62 x86_64, 183 aarch64, …
    package var machine: UInt16
    /// `e_phoff`.
    package var programHeaderOffset: UInt64
    /// `e_shoff`; 0 when the file has no section headers.
    package var sectionHeaderOffset: UInt64
    /// `e_phentsize`.
    package var programHeaderSize: UInt16
    /// `e_phnum`.
    package var programHeaderCount: UInt16
    /// `e_shentsize`.
    package var sectionHeaderSize: UInt16
    /// `e_shnum`; 0 when the count is section 0's `sh_size`.
    package var sectionHeaderCount: UInt16
    /// `e_shstrndx`; 0xFFFF when the index is section 0's `sh_link`.
    package var sectionNamesIndex: UInt16

    /// `ET_REL`: an object file (`.o`).
    package static let relocatable: UInt16 = 1
    /// `ET_EXEC`: an executable at a fixed address.
    package static let executable: UInt16 = 2
    /// `ET_DYN`: a shared object, or a position-independent executable.
    package static let sharedObject: UInt16 = 3
    /// `ET_CORE`: a core dump.
    package static let core: UInt16 = 4

    /// `EM_X86_64`.
    package static let x86_64: UInt16 = 62
    /// `EM_AARCH64`.
    package static let aarch64: UInt16 = 183
    /// The machine this process runs on, as ELF names it; 0 on a machine the reader does not name.
    package static let hostMachine: UInt16 = {
        #if arch(x86_64)
        return x86_64
        #elseif arch(arm64)
        return aarch64
        #else
        return 0
        #endif
    }()

    /// A person's name for a machine number: `x86_64`, `aarch64`, …; `unknown` for one the reader does not name.
    package static func machineName(_ machine: UInt16) -> String {
        [3: "i386", 8: "mips", 20: "ppc", 21: "ppc64", 40: "arm", x86_64: "x86_64", aarch64: "aarch64", 243: "riscv"][
            machine] ?? "unknown"
    }

    /// A person's name for a file type: `an object file (.o)`, `an executable`, …
    package static func typeName(_ type: UInt16) -> String {
        [
            relocatable: "an object file (.o)", executable: "an executable", sharedObject: "a shared object",
            core: "a core dump",
        ][type] ?? "of ELF type \(type)"
    }

    /// The header at the start of `raw`, which holds at least 64 bytes.
    init(_ raw: UnsafeRawBufferPointer) {
        type = raw.u16(16)
        machine = raw.u16(18)
        programHeaderOffset = raw.u64(32)
        sectionHeaderOffset = raw.u64(40)
        programHeaderSize = raw.u16(54)
        programHeaderCount = raw.u16(56)
        sectionHeaderSize = raw.u16(58)
        sectionHeaderCount = raw.u16(60)
        sectionNamesIndex = raw.u16(62)
    }
}

/// One program header: a segment.
package struct ELFProgramHeader: Sendable, Hashable {
    /// `p_type`.
    package var type: UInt32
    /// `p_offset`: where the segment's bytes start in the file.
    package var offset: UInt64
    /// `p_vaddr`.
    package var address: UInt64
    /// `p_filesz`.
    package var fileSize: UInt64

    /// `PT_LOAD`.
    package static let load: UInt32 = 1
    /// `PT_DYNAMIC`.
    package static let dynamic: UInt32 = 2
    /// `PT_INTERP`: the file names a program interpreter, so it is an executable.
    package static let interpreter: UInt32 = 3
    /// `PT_NOTE`.
    package static let note: UInt32 = 4

    /// The 56-byte entry at `base` of `raw`.
    init(_ raw: UnsafeRawBufferPointer, at base: Int) {
        type = raw.u32(base)
        offset = raw.u64(base + 8)
        address = raw.u64(base + 16)
        fileSize = raw.u64(base + 32)
    }
}

/// One section header.
package struct ELFSectionHeader: Sendable, Hashable {
    /// `sh_name`: the name's offset in the section name table.
    package var nameOffset: UInt32
    /// `sh_type`.
    package var type: UInt32
    /// `sh_flags`.
    package var flags: UInt64
    /// `sh_addr`.
    package var address: UInt64
    /// `sh_offset`.
    package var offset: UInt64
    /// `sh_size`.
    package var size: UInt64
    /// `sh_link`: for a symbol table, the index of its string table.
    package var link: UInt32
    /// `sh_entsize`.
    package var entrySize: UInt64

    /// `SHT_SYMTAB`.
    package static let symbolTable: UInt32 = 2
    /// `SHT_NOTE`.
    package static let note: UInt32 = 7
    /// `SHT_NOBITS`: the section takes no bytes of the file.
    package static let noBits: UInt32 = 8
    /// `SHT_DYNSYM`.
    package static let dynamicSymbols: UInt32 = 11
    /// `SHF_EXECINSTR`.
    package static let executable: UInt64 = 0x4
    /// `SHF_COMPRESSED`.
    package static let compressed: UInt64 = 0x800

    /// The 64-byte entry at `base` of `raw`.
    init(_ raw: UnsafeRawBufferPointer, at base: Int) {
        nameOffset = raw.u32(base)
        type = raw.u32(base + 4)
        flags = raw.u64(base + 8)
        address = raw.u64(base + 16)
        offset = raw.u64(base + 24)
        size = raw.u64(base + 32)
        link = raw.u32(base + 40)
        entrySize = raw.u64(base + 56)
    }
}

/// One ELF64 symbol.
package struct ELFSymbol: Sendable, Hashable {
    /// `st_name`: the name's offset in the table's string table.
    package var nameOffset: UInt32
    /// `st_info`: type and binding.
    package var info: UInt8
    /// `st_other`: visibility.
    package var other: UInt8
    /// `st_shndx`: 0 for an undefined symbol.
    package var sectionIndex: UInt16
    /// `st_value`.
    package var value: UInt64
    /// `st_size`.
    package var size: UInt64

    /// The 24-byte entry at `base` of `raw`.
    @inlinable package init(_ raw: UnsafeRawBufferPointer, at base: Int) {
        nameOffset = raw.u32(base)
        info = raw[base + 4]
        other = raw[base + 5]
        sectionIndex = raw.u16(base + 6)
        value = raw.u64(base + 8)
        size = raw.u64(base + 16)
    }

    /// `STT_*`: ``noType``, ``function``, ``indirectFunction``, …
    @inlinable package var type: UInt8 { info & 0xF }
    /// `STT_NOTYPE`.
    package static let noType: UInt8 = 0
    /// `STT_FUNC`.
    package static let function: UInt8 = 2
    /// `STT_GNU_IFUNC`: a function whose address a resolver picks at load time.
    package static let indirectFunction: UInt8 = 10
    /// `STB_*`: 0 local, ``global``, ``weak``.
    @inlinable package var binding: UInt8 { info >> 4 }
    /// `STB_GLOBAL`.
    package static let global: UInt8 = 1
    /// `STB_WEAK`.
    package static let weak: UInt8 = 2
    /// `STV_*`: ``defaultVisibility``, 1 internal, 2 hidden, ``protectedVisibility``.
    @inlinable package var visibility: UInt8 { other & 0x3 }
    /// `STV_DEFAULT`.
    package static let defaultVisibility: UInt8 = 0
    /// `STV_PROTECTED`.
    package static let protectedVisibility: UInt8 = 3
    /// `SHN_UNDEF`: the section index of a symbol the file does not define.
    package static let undefinedSection: UInt16 = 0
    /// `SHN_LORESERVE`: section indices from here on are reserved (absolute, common, …), not sections.
    package static let firstReservedSection: UInt16 = 0xFF00

    /// Whether the symbol's name in `strings` is exactly `wanted`.
    package func isNamed(_ wanted: [UInt8], in strings: UnsafeRawBufferPointer) -> Bool {
        let name = Int(nameOffset)
        guard name + wanted.count < strings.count, strings[name + wanted.count] == 0 else { return false }
        return strings[name..<(name + wanted.count)].elementsEqual(wanted)
    }
}

/// The entries of a symbol table, in place.
package struct ELFSymbolTable: RandomAccessCollection {
    /// The table's bytes.
    @usableFromInline let raw: UnsafeRawBufferPointer
    /// `sh_entsize`, at least 24.
    @usableFromInline let entrySize: Int

    @inlinable init(raw: UnsafeRawBufferPointer, entrySize: Int) {
        self.raw = raw
        self.entrySize = entrySize
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { raw.count / entrySize }
    @inlinable package subscript(index: Int) -> ELFSymbol { ELFSymbol(raw, at: index * entrySize) }
}

/// ELF notes (a `PT_NOTE` segment or an `SHT_NOTE` section): the one reader of a build-id note in Swift. The crash
/// handler has its own in C, which must not allocate.
package enum ELFNotes {
    /// The description of the first `NT_GNU_BUILD_ID` note named "GNU" in `notes`, or nil when there is none or the
    /// notes run past the end.
    package static func buildID(in notes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var at = 0
        while notes.count - at >= 12 {
            let nameSize = Int(notes.u32(at))
            let descriptionSize = Int(notes.u32(at + 4))
            let type = notes.u32(at + 8)
            // Name and description are each padded to 4 bytes; the sizes are at most 2^32, so nothing overflows.
            let descriptionAt = at + 12 + ((nameSize + 3) & ~3)
            let end = descriptionAt + ((descriptionSize + 3) & ~3)
            guard end <= notes.count else { return nil }
            if type == 3, nameSize == 4, notes.u32(at + 12) == 0x0055_4E47, descriptionSize > 0 {  // "GNU\0"
                return UnsafeRawBufferPointer(rebasing: notes[descriptionAt..<(descriptionAt + descriptionSize)])
            }
            at = end
        }
        return nil
    }
}

extension [UInt8] {
    /// The bytes as lowercase hexadecimal, two digits each: how a build-id is written.
    package var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: count * 2) { buffer in
            for (index, byte) in enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0xF)]
            }
            return count * 2
        }
    }
}
