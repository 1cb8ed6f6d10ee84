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
            let kind = [1: "a relocatable object", 2: "an executable", 4: "a core dump"][Int(type)] ?? "type \(type)"
            return (.notSharedObject, "ELF \(kind), not a shared object (ET_DYN)")
        }

        // Section headers: find SHT_DYNSYM and the string table it links to.
        let shoff = Int(clamping: ident.u64(40))
        let shentsize = Int(ident.u16(58))
        var shnum = Int(ident.u16(60))
        guard shoff > 0, shentsize >= 64 else {
            return (.missingEntrySymbol, "no section headers to find the dynamic symbol table in")
        }
        if shnum == 0, let first = reader.bytes(at: shoff, count: 64) {
            shnum = Int(clamping: first.u64(32))  // more than 0xff00 sections: the count lives in section 0
        }
        guard shnum > 0, shnum < 1 << 16, let table = reader.bytes(at: shoff, count: shnum * shentsize) else {
            return (.malformedELF, "section header table outside the file")
        }
        func section(_ index: Int) -> (type: UInt32, offset: Int, size: Int, link: Int, entsize: Int) {
            let base = index * shentsize
            return (
                table.u32(base + 4), Int(clamping: table.u64(base + 24)), Int(clamping: table.u64(base + 32)),
                Int(table.u32(base + 40)), Int(clamping: table.u64(base + 56))
            )
        }
        guard let dynsym = (0..<shnum).lazy.map(section).first(where: { $0.type == 11 }) else {
            return (.missingEntrySymbol, "no dynamic symbol table (.dynsym)")
        }
        guard dynsym.link < shnum, dynsym.entsize >= 24, dynsym.size <= 1 << 26 else {
            return (.malformedELF, "dynamic symbol table header does not add up")
        }
        let strtab = section(dynsym.link)
        guard strtab.size <= 1 << 26, let symbols = reader.bytes(at: dynsym.offset, count: dynsym.size),
            let strings = reader.bytes(at: strtab.offset, count: strtab.size)
        else { return (.malformedELF, "dynamic symbol or string table outside the file") }

        let wanted = Array(symbol.utf8)
        for index in 0..<(dynsym.size / dynsym.entsize) {
            let base = index * dynsym.entsize
            let name = Int(symbols.u32(base))
            let info = symbols[base + 4]
            let other = symbols[base + 5]
            let sectionIndex = symbols.u16(base + 6)
            guard name + wanted.count < strings.count,
                strings[name + wanted.count] == 0,
                strings[name..<(name + wanted.count)].elementsEqual(wanted)
            else { continue }
            // Defined (not SHN_UNDEF), a function, global or weak, default or protected visibility.
            let binding = info >> 4
            let kind = info & 0xF
            if sectionIndex != 0, kind == 2, binding == 1 || binding == 2, other & 0x3 == 0 || other & 0x3 == 3 {
                return nil
            }
            return (.missingEntrySymbol, "\(symbol) is in the dynamic symbol table but not as a defined function")
        }
        return (.missingEntrySymbol, "\(symbol) is not exported")
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
