import AxiomELF
import CAxiomDwarf

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A read-only memory mapping of an ELF file with the few things symbolication needs from it: the
/// section headers, the function symbols of `.symtab`/`.dynsym`, and the GNU build-id note.
///
/// The file is read by the shared ELF reader (`ELFFile`), which bounds-checks every offset, so a truncated or
/// corrupt file yields a `SymbolicationError`, never a crash. Only 64-bit little-endian ELF (x86_64, aarch64) is
/// handled.
final class ELFImage: @unchecked Sendable {
    // @unchecked: the mapping's pointer is not Sendable. Every stored property is a `let`, and the mapping is
    // read-only (`PROT_READ`) and unmapped only when the image is freed, so threads may read one image at once.
    /// A section header and its name.
    struct Section {
        var name: String
        var header: ELFSectionHeader

        var type: UInt32 { header.type }
        var flags: UInt64 { header.flags }
        var address: UInt64 { header.address }
        var offset: UInt64 { header.offset }
        var size: UInt64 { header.size }
    }

    /// A function symbol. The name is read from the string table only when it is asked for.
    struct Symbol {
        var address: UInt64
        var size: UInt64
        var nameOffset: Int  // absolute file offset of the NUL-terminated name
        /// Position in the symbol tables read, which decides among aliases of one address and size.
        var order: Int = 0
    }

    let path: String
    private let file: ELFFile<MappedELFBytes>
    private var base: UnsafeRawPointer { file.bytes.base }
    var fileSize: Int { file.bytes.count }
    let sections: [Section]

    init(path: String) throws(SymbolicationError) {
        self.path = path
        // O_NONBLOCK: a path from a crash report may name a FIFO, whose open would wait for a writer; it is
        // refused below as not a regular file, on which the flag changes nothing.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let error = errno
            if error == ENOENT || error == ENOTDIR { throw .fileNotFound(path) }
            throw .unreadable(path, String(cString: strerror(error)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path, String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path, "not a regular file") }
        let size = Int(info.st_size)
        guard size >= 4 else { throw SymbolicationError(ELFError.notELF, path: path) }
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
            throw .unreadable(path, String(cString: strerror(errno)))
        }
        do throws(ELFError) {
            let file = try ELFFile(MappedELFBytes(base: UnsafeRawPointer(mapping), count: size))
            let headers = try file.sectionHeaders()
            self.file = file
            self.sections = zip(file.sectionNames(headers), headers).map(Section.init)
        } catch {
            munmap(mapping, size)
            throw SymbolicationError(error, path: path)
        }
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), fileSize)
    }

    // MARK: Bounds-checked reads

    private func fits(_ offset: UInt64, _ count: UInt64) -> Bool {
        file.bytes.contains(offset, count)
    }

    @inline(__always) private func read<T: FixedWidthInteger>(_ offset: UInt64, as: T.Type) -> T {
        T(littleEndian: base.loadUnaligned(fromByteOffset: Int(offset), as: T.self))
    }

    /// A NUL-terminated string at `offset`, or nil when it runs past the end of the file.
    func string(at offset: Int) -> String? {
        file.bytes.string(at: offset)
    }

    /// True when the file carries DWARF (possibly compressed). A stripped file may keep the section header with
    /// no bytes (`SHT_NOBITS`): that is no DWARF.
    var hasDWARF: Bool {
        sections.contains {
            ($0.name == ".debug_info" || $0.name == ".zdebug_info") && $0.type != ELFSectionHeader.noBits && $0.size > 0
        }
    }

    /// True when the file has a full symbol table (`.symtab`), not only the dynamic symbols.
    var hasSymbolTable: Bool {
        sections.contains { $0.type == ELFSectionHeader.symbolTable && $0.size > 0 }
    }

    /// The `.gnu_debuglink` section: the separate debug file's name and the CRC-32 of its contents.
    func debugLink() -> (name: String, crc: UInt32)? {
        guard
            let section = sections.first(where: { $0.name == ".gnu_debuglink" && $0.type != ELFSectionHeader.noBits }),
            fits(section.offset, section.size), section.size >= 8,
            let name = string(at: Int(section.offset)), !name.isEmpty, !name.contains("/")
        else { return nil }
        // The name, its NUL, padding to 4 bytes, then the CRC.
        let crcOffset = (UInt64(name.utf8.count) + 1 + 3) & ~3
        guard crcOffset + 4 <= section.size else { return nil }
        return (name, read(section.offset + crcOffset, as: UInt32.self))
    }

    /// The CRC-32 of the whole file, as `.gnu_debuglink` records it.
    func checksum() -> UInt32 {
        UInt32(axiom_debuglink_crc32(base.assumingMemoryBound(to: UInt8.self), fileSize, 0))
    }

    // MARK: Symbols

    /// The code symbols sorted by address, one per address.
    ///
    /// Kept: FUNC, GNU_IFUNC and NOTYPE (assembly labels) symbols defined in executable sections. `.symtab` is
    /// used when it has any; otherwise `.dynsym`. Among aliases at one address the largest size wins, then the
    /// last in table order, which is what `llvm-symbolizer` does.
    func functionSymbols() -> [Symbol] {
        let fromSymtab = symbols(ofType: ELFSectionHeader.symbolTable)
        var sorted = fromSymtab.isEmpty ? symbols(ofType: ELFSectionHeader.dynamicSymbols) : fromSymtab
        sorted.sort { lhs, rhs in
            if lhs.address != rhs.address { return lhs.address < rhs.address }
            if lhs.size != rhs.size { return lhs.size < rhs.size }
            return lhs.order < rhs.order
        }
        var result: [Symbol] = []
        result.reserveCapacity(sorted.count)
        for symbol in sorted {
            if let last = result.last, last.address == symbol.address {
                result[result.count - 1] = symbol
            } else {
                result.append(symbol)
            }
        }
        return result
    }

    private func symbols(ofType type: UInt32) -> [Symbol] {
        var result: [Symbol] = []
        for section in sections where section.type == type && Int(section.header.link) < sections.count {
            let strings = sections[Int(section.header.link)].header
            guard fits(strings.offset, strings.size) else { continue }
            _ = file.withSymbols(in: section.header) { table in
                result.reserveCapacity(result.count + table.count)
                for entry in table {
                    guard
                        entry.type == ELFSymbol.noType || entry.type == ELFSymbol.function
                            || entry.type == ELFSymbol.indirectFunction
                    else { continue }
                    let sectionIndex = Int(entry.sectionIndex)
                    // Defined in an executable section (SHF_EXECINSTR); SHN_UNDEF and reserved indices are not.
                    guard sectionIndex != Int(ELFSymbol.undefinedSection),
                        sectionIndex < min(sections.count, Int(ELFSymbol.firstReservedSection)), entry.value != 0,
                        sections[sectionIndex].flags & ELFSectionHeader.executable != 0,
                        UInt64(entry.nameOffset) < strings.size
                    else { continue }
                    result.append(
                        Symbol(
                            address: entry.value, size: entry.size,
                            nameOffset: Int(strings.offset) + Int(entry.nameOffset), order: result.count))
                }
            }
        }
        return result
    }

    // MARK: Section bytes

    /// What a section's bytes are to a reader of the mapped file.
    enum SectionBytes {
        /// The file has no such section, or it holds no bytes (`SHT_NOBITS`, size 0).
        case absent
        case bytes(DWARFSection)
        /// Compressed (`SHF_COMPRESSED`), or lying past the end of the file: not readable in place.
        case unusable
    }

    /// The bytes of the first section named `name`, in place in the mapping.
    func sectionBytes(named name: String) -> SectionBytes {
        guard let section = sections.first(where: { $0.name == name }), section.type != ELFSectionHeader.noBits,
            section.size > 0
        else {
            return .absent
        }
        guard section.flags & 0x800 == 0, fits(section.offset, section.size), let start = Int(exactly: section.offset),
            let count = Int(exactly: section.size)
        else { return .unusable }
        return .bytes(DWARFSection(base: base.advanced(by: start), count: count))
    }

    // MARK: Checks for libdwarf

    /// Why libdwarf must not be given this file's `.debug_rnglists`, or nil when it may.
    ///
    /// libdwarf 20210528 (Debian 12) frees a range-list header it could not read and keeps using it
    /// (`internal_load_rnglists_contexts` lacks a `return` after the error), then frees it again: a corrupt
    /// header is a double free inside the library, when the first compile unit is read. So every header is read
    /// here first, more strictly than libdwarf reads it: each unit lies inside the section, is DWARF 5, has an
    /// address size libdwarf takes, and holds its offset table. Compressed sections cannot be read here and are
    /// left to libdwarf.
    func rangeListProblem() -> String? {
        for section in sections
        where (section.name == ".debug_rnglists" || section.name == ".debug_rnglists.dwo")
            && section.type != ELFSectionHeader.noBits
            // A section without bytes has no lists, and a compressed one's bytes are not the lists.
            && section.flags & ELFSectionHeader.compressed == 0
        {
            guard fits(section.offset, section.size) else { return "\(section.name) lies past the end of the file" }
            let end = section.offset + section.size
            var unit = section.offset
            while unit < end {
                let at = "\(section.name) unit at offset \(unit - section.offset)"
                guard end - unit >= 4 else { return "\(at) is cut short" }
                var length = UInt64(read(unit, as: UInt32.self))
                var header = unit + 4
                var offsetSize: UInt64 = 4
                if length == 0xFFFF_FFFF {
                    guard end - header >= 8 else { return "\(at) is cut short" }
                    length = read(header, as: UInt64.self)
                    header += 8
                    offsetSize = 8
                } else if length >= 0xFFFF_FFF0 {
                    return "\(at) has the reserved length \(length)"
                }
                // version (2), address size (1), segment selector size (1), offset entry count (4).
                guard length >= 8, length <= end - header else { return "\(at) has a length of \(length) bytes" }
                let version = read(header, as: UInt16.self)
                let addressSize = read(header + 2, as: UInt8.self)
                let entries = UInt64(read(header + 4, as: UInt32.self))
                guard version == 5 else { return "\(at) has version \(version)" }
                guard addressSize == 2 || addressSize == 4 || addressSize == 8 else {
                    return "\(at) has address size \(addressSize)"
                }
                guard entries <= (length - 8) / offsetSize else { return "\(at) has \(entries) offsets too many" }
                unit = header + length
            }
        }
        return nil
    }

    // MARK: Build-id

    /// The GNU build-id (`NT_GNU_BUILD_ID` note) as lowercase hex, or nil.
    func buildID() -> String? {
        file.buildID(sections: sections.map(\.header))?.lowercaseHex
    }
}

extension SymbolicationError {
    /// The ELF reader's failure on the file at `path`: the one place its words become the symbolicator's.
    init(_ error: ELFError, path: String, file: String = #fileID, line: UInt = #line) {
        switch error {
        case .notELF: self = .notELF(path, file: file, line: line)
        case .truncated, .malformed: self = .malformedELF(path, error.description, file: file, line: line)
        case .unsupportedClass, .unsupportedByteOrder:
            self = .unsupportedELF(path, error.description, file: file, line: line)
        }
    }
}

/// Reads the GNU build-id note of an ELF file on disk, as a lowercase hex string.
///
/// Returns nil when the file is missing, is not a 64-bit little-endian ELF file, or has no build-id.
package func elfBuildID(path: String) -> String? {
    (try? ELFImage(path: path))?.buildID()
}

/// Whether an ELF file on disk carries DWARF (`.debug_info`, possibly compressed), as opposed to a stripped file.
///
/// Returns false when the file is missing or not a 64-bit little-endian ELF file.
package func elfHasDWARF(path: String) -> Bool {
    (try? ELFImage(path: path))?.hasDWARF ?? false
}
