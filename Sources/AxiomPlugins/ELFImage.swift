#if canImport(Glibc)
import Glibc
#endif

// The checks made on a file before it is handed to dlopen. They read the ELF header, the section header
// table and the dynamic symbol table with pread, so a file that is not a plugin is never mapped, and no
// constructor of it ever runs.

/// What the pre-load inspection found out about an open file.
struct ELFImage {
    /// The machine the host runs on, as ELF names it.
    static let hostMachine: UInt16 = {
        #if arch(x86_64)
        return 62  // EM_X86_64
        #elseif arch(arm64)
        return 183  // EM_AARCH64
        #else
        return 0
        #endif
    }()

    /// Checks that the file open at `descriptor` is an ELF64 little-endian shared object for this machine
    /// that defines `symbol` in its dynamic symbol table.
    static func check(
        descriptor: Int32, size: Int, exporting symbol: String
    ) -> (PluginRejection.Reason, String)? {
        let reader = Reader(descriptor: descriptor, size: size)
        guard let ident = reader.bytes(at: 0, count: 64), ident.count >= 16,
            ident[0] == 0x7F, ident[1] == 0x45, ident[2] == 0x4C, ident[3] == 0x46
        else { return (.notELF, "no ELF magic at the start of the file") }
        guard ident[4] == 2 else {
            return (.wrongClass, ident[4] == 1 ? "ELF32; this host loads ELF64" : "ELF class \(ident[4])")
        }
        guard ident[5] == 1 else { return (.wrongByteOrder, "big-endian ELF; this host is little-endian") }
        guard ident.count == 64 else { return (.malformedELF, "truncated ELF header") }
        let type = ident.u16(16)
        let machine = ident.u16(18)
        guard machine == hostMachine else {
            return (.wrongArchitecture, "ELF machine \(machine) (\(machineName(machine))); this host is \(hostMachine)")
        }
        guard type == 3 else {
            let kind =
                [1: "an object file (.o)", 2: "an executable", 4: "a core dump"][Int(type)] ?? "of ELF type \(type)"
            return (
                .notSharedObject, "the file is \(kind), not a shared library; link the plugin with -shared"
            )
        }

        // The dynamic symbol table through the section headers; through PT_DYNAMIC when they are stripped.
        let wanted = Array(symbol.utf8)
        var lookup = sectionLookup(reader, ident, wanted)
        if case .unavailable(let why) = lookup {
            lookup = dynamicLookup(reader, ident, wanted)
            if case .unavailable(let other) = lookup { return (.missingEntrySymbol, "\(why); \(other)") }
        }
        // A position-independent executable is ET_DYN too: say so, since the fix is a link flag.
        let hint =
            hasInterpreter(reader, ident)
            ? " (the file is a position-independent executable, not a shared library: link the plugin with -shared)"
            : ""
        switch lookup {
        case .defined: return nil
        case .undefined: return (.missingEntrySymbol, "\(symbol) is not exported" + hint)
        case .notAFunction:
            return (
                .missingEntrySymbol, "\(symbol) is in the dynamic symbol table but not as a defined function" + hint
            )
        case .malformed(let detail): return (.malformedELF, detail)
        case .unavailable(let detail): return (.missingEntrySymbol, detail + hint)
        }
    }

    /// The program headers as (type, offset, file size), or nil when the table is absent or outside the file.
    private static func programHeaders(_ reader: Reader, _ ident: [UInt8]) -> [(type: UInt32, offset: Int, size: Int)]?
    {
        let phoff = Int(clamping: ident.u64(32))
        let phentsize = Int(ident.u16(54))
        let phnum = Int(ident.u16(56))
        guard phoff > 0, phentsize >= 56, phnum > 0, let headers = reader.bytes(at: phoff, count: phnum * phentsize)
        else { return nil }
        return (0..<phnum).map { index in
            let base = index * phentsize
            return (headers.u32(base), Int(clamping: headers.u64(base + 8)), Int(clamping: headers.u64(base + 32)))
        }
    }

    /// Whether the file names a program interpreter (PT_INTERP): an executable, even when it is ET_DYN.
    private static func hasInterpreter(_ reader: Reader, _ ident: [UInt8]) -> Bool {
        programHeaders(reader, ident)?.contains { $0.type == 3 } ?? false
    }

    /// The GNU build-id of the ELF file open at `descriptor` (its NT_GNU_BUILD_ID note), or nil when it has none or
    /// the notes do not add up. Read with pread, like the checks.
    static func buildID(descriptor: Int32, size: Int) -> [UInt8]? {
        let reader = Reader(descriptor: descriptor, size: size)
        guard let ident = reader.bytes(at: 0, count: 64), ident.count == 64, let headers = programHeaders(reader, ident)
        else { return nil }
        for note in headers where note.type == 4 && note.size <= 1 << 16 {
            guard let bytes = reader.bytes(at: note.offset, count: note.size) else { continue }
            var at = 0
            while at + 12 <= bytes.count {
                let nameSize = Int(bytes.u32(at))
                let descriptionSize = Int(bytes.u32(at + 4))
                let type = bytes.u32(at + 8)
                let nameAt = at + 12
                let descriptionAt = nameAt + (nameSize + 3) & ~3
                let end = descriptionAt + (descriptionSize + 3) & ~3
                guard nameSize <= bytes.count, descriptionSize <= bytes.count, end <= bytes.count,
                    descriptionAt + descriptionSize <= bytes.count
                else { break }
                if type == 3 && nameSize == 4 && bytes[nameAt..<(nameAt + 4)].elementsEqual([0x47, 0x4E, 0x55, 0]) {
                    return Array(bytes[descriptionAt..<(descriptionAt + descriptionSize)])
                }
                at = end
            }
        }
        return nil
    }

    enum Lookup {
        case defined, undefined, notAFunction
        /// This way of finding the table does not apply to the file.
        case unavailable(String)
        case malformed(String)
    }

    /// Whether a 24-byte ELF64 symbol at `base` is `wanted`, and defined as an exported function.
    private static func match(_ symbols: [UInt8], _ base: Int, _ strings: [UInt8], _ wanted: [UInt8]) -> Lookup? {
        let name = Int(symbols.u32(base))
        guard name + wanted.count < strings.count, strings[name + wanted.count] == 0,
            strings[name..<(name + wanted.count)].elementsEqual(wanted)
        else { return nil }
        let info = symbols[base + 4]
        let visibility = symbols[base + 5] & 0x3
        let sectionIndex = symbols.u16(base + 6)
        // Defined (not SHN_UNDEF), a function, global or weak, default or protected visibility.
        let binding = info >> 4
        let exported = sectionIndex != 0 && info & 0xF == 2 && (binding == 1 || binding == 2)
        return exported && (visibility == 0 || visibility == 3) ? .defined : .notAFunction
    }

    /// Finds SHT_DYNSYM and the string table it links to, and scans the symbols.
    private static func sectionLookup(_ reader: Reader, _ ident: [UInt8], _ wanted: [UInt8]) -> Lookup {
        let shoff = Int(clamping: ident.u64(40))
        let shentsize = Int(ident.u16(58))
        var shnum = Int(ident.u16(60))
        guard shoff > 0, shentsize >= 64 else { return .unavailable("no section headers") }
        if shnum == 0, let first = reader.bytes(at: shoff, count: 64) {
            shnum = Int(clamping: first.u64(32))  // more than 0xff00 sections: the count lives in section 0
        }
        guard shnum > 0, shnum < 1 << 16, let table = reader.bytes(at: shoff, count: shnum * shentsize) else {
            return .malformed("section header table outside the file")
        }
        func section(_ index: Int) -> (type: UInt32, offset: Int, size: Int, link: Int, entsize: Int) {
            let base = index * shentsize
            return (
                table.u32(base + 4), Int(clamping: table.u64(base + 24)), Int(clamping: table.u64(base + 32)),
                Int(table.u32(base + 40)), Int(clamping: table.u64(base + 56))
            )
        }
        guard let dynsym = (0..<shnum).lazy.map(section).first(where: { $0.type == 11 }) else {
            return .unavailable("no dynamic symbol table section (.dynsym)")
        }
        guard dynsym.link < shnum, dynsym.entsize >= 24, dynsym.size <= 1 << 26 else {
            return .malformed("dynamic symbol table header does not add up")
        }
        let strtab = section(dynsym.link)
        guard strtab.size <= 1 << 26, let symbols = reader.bytes(at: dynsym.offset, count: dynsym.size),
            let strings = reader.bytes(at: strtab.offset, count: strtab.size)
        else { return .malformed("dynamic symbol or string table outside the file") }
        for index in 0..<(dynsym.size / dynsym.entsize) {
            if let found = match(symbols, index * dynsym.entsize, strings, wanted) { return found }
        }
        return .undefined
    }

    /// Finds the symbol through PT_DYNAMIC: DT_SYMTAB and DT_STRTAB, and DT_GNU_HASH (a hash lookup) or DT_HASH
    /// (the symbol count), translating their addresses to file offsets through the PT_LOAD segments.
    private static func dynamicLookup(_ reader: Reader, _ ident: [UInt8], _ wanted: [UInt8]) -> Lookup {
        let phoff = Int(clamping: ident.u64(32))
        let phentsize = Int(ident.u16(54))
        let phnum = Int(ident.u16(56))
        guard phoff > 0, phentsize >= 56, phnum > 0 else { return .unavailable("no program headers") }
        guard let headers = reader.bytes(at: phoff, count: phnum * phentsize) else {
            return .malformed("program header table outside the file")
        }
        var loads: [(address: UInt64, offset: UInt64, size: UInt64)] = []
        var dynamic: (offset: Int, size: Int)?
        for index in 0..<phnum {
            let base = index * phentsize
            let type = headers.u32(base)
            if type == 1 { loads.append((headers.u64(base + 16), headers.u64(base + 8), headers.u64(base + 32))) }
            if type == 2 { dynamic = (Int(clamping: headers.u64(base + 8)), Int(clamping: headers.u64(base + 32))) }
        }
        guard let dynamic else { return .unavailable("no PT_DYNAMIC segment") }
        guard dynamic.size <= 1 << 20, let entries = reader.bytes(at: dynamic.offset, count: dynamic.size) else {
            return .malformed("PT_DYNAMIC outside the file")
        }
        // An address inside a PT_LOAD, as a file offset; nil when no segment holds it or when the segment's
        // p_offset puts it beyond any file (the sum is checked: p_offset comes from the file).
        func offset(_ address: UInt64) -> Int? {
            guard let load = loads.first(where: { address >= $0.address && address - $0.address < $0.size }) else {
                return nil
            }
            let (sum, overflow) = (address - load.address).addingReportingOverflow(load.offset)
            return overflow ? nil : Int(exactly: sum)
        }
        var tags: [UInt64: UInt64] = [:]
        for index in 0..<(dynamic.size / 16) {
            let tag = entries.u64(index * 16)
            if tag == 0 { break }
            tags[tag] = entries.u64(index * 16 + 8)
        }
        guard let symtab = tags[6].flatMap(offset), let strtab = tags[5].flatMap(offset), let strsz = tags[10],
            strsz <= 1 << 26, let strings = reader.bytes(at: strtab, count: Int(strsz))
        else { return .malformed("PT_DYNAMIC lacks a readable DT_SYMTAB, DT_STRTAB or DT_STRSZ") }
        func symbol(_ index: Int) -> Lookup? {
            guard let at = checked(symtab, plus: index, times: 24), let bytes = reader.bytes(at: at, count: 24) else {
                return .malformed("dynamic symbol #\(index) outside the file")
            }
            return match(bytes, 0, strings, wanted)
        }

        if let gnu = tags[0x6fff_fef5].flatMap(offset), let header = reader.bytes(at: gnu, count: 16) {
            let buckets = Int(header.u32(0))
            let symoffset = Int(header.u32(4))
            let bloomWords = Int(header.u32(8))
            guard buckets > 0, buckets < 1 << 24, bloomWords < 1 << 24 else {
                return .malformed("DT_GNU_HASH does not add up")
            }
            let hash = wanted.reduce(UInt32(5381)) { $0 &* 33 &+ UInt32($1) }
            // The table's position comes from the file: every sum is checked, and a sum beyond any file is
            // the same refusal as a table outside this one.
            guard let bucketsAt = checked(gnu, plus: 2 + bloomWords, times: 8),
                let bucketAt = checked(bucketsAt, plus: Int(hash % UInt32(buckets)), times: 4),
                let bucket = reader.bytes(at: bucketAt, count: 4),
                let chains = checked(bucketsAt, plus: buckets, times: 4)
            else { return .malformed("DT_GNU_HASH buckets outside the file") }
            var index = Int(bucket.u32(0))
            guard index >= symoffset else { return .undefined }
            while let linkAt = checked(chains, plus: index - symoffset, times: 4),
                let link = reader.bytes(at: linkAt, count: 4)
            {
                let value = link.u32(0)
                if value | 1 == hash | 1, let found = symbol(index) { return found }
                if value & 1 == 1 { return .undefined }
                index += 1
            }
            return .malformed("DT_GNU_HASH chain outside the file")
        }
        if let sysv = tags[4].flatMap(offset), let header = reader.bytes(at: sysv, count: 8) {
            let count = Int(header.u32(4))  // nchain: the number of symbols
            guard count < 1 << 24 else { return .malformed("DT_HASH does not add up") }
            for index in 0..<count {
                if let found = symbol(index) { return found }
            }
            return .undefined
        }
        return .unavailable("no DT_GNU_HASH or DT_HASH to size the dynamic symbol table")
    }

    /// `base + count * size`, or nil when it overflows: the operands come from the file.
    private static func checked(_ base: Int, plus count: Int, times size: Int) -> Int? {
        let (product, productOverflow) = count.multipliedReportingOverflow(by: size)
        let (sum, sumOverflow) = base.addingReportingOverflow(product)
        return productOverflow || sumOverflow ? nil : sum
    }

    private static func machineName(_ machine: UInt16) -> String {
        [3: "i386", 8: "mips", 20: "ppc", 21: "ppc64", 40: "arm", 62: "x86_64", 183: "aarch64", 243: "riscv"][
            Int(machine)] ?? "unknown"
    }

    /// Reads ranges of a file by offset, refusing ranges that leave it.
    private struct Reader {
        let descriptor: Int32
        let size: Int

        func bytes(at offset: Int, count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
                // A header shorter than asked for is reported by the caller from what exists.
                if offset == 0, count > size, size >= 0 { return bytes(at: 0, count: size) }
                return nil
            }
            var buffer = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = buffer.withUnsafeMutableBytes { raw in
                    pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset + done))
                }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return nil }
                done += n
            }
            return buffer
        }
    }
}

extension Array where Element == UInt8 {
    // Little-endian reads; the caller has checked the byte order.
    fileprivate func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    fileprivate func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[at + $1]) << (8 * $1) } }
    fileprivate func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[at + $1]) << (8 * $1) } }
}
