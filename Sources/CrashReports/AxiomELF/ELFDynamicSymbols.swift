/// What a search of a file's dynamic symbol table for one name found.
package enum ELFDynamicSymbolLookup: Sendable, Hashable {
    /// The first entry with the name.
    case found(ELFSymbol)
    /// The table has no entry with the name.
    case absent
    /// Neither way of finding the table applies to the file; the detail says why.
    case unavailable(String)
}

extension ELFFile {
    /// The entry named `name` in the dynamic symbol table, found through the section headers (`SHT_DYNSYM`), or
    /// through `PT_DYNAMIC` when they are stripped: the dynamic loader needs no section headers.
    ///
    /// - Throws: ``ELFError/malformed(_:)`` when the table, its strings or its hash table leave the file or do not
    ///   add up.
    package func dynamicSymbol(named name: String) throws(ELFError) -> ELFDynamicSymbolLookup {
        let wanted = Array(name.utf8)
        let bySection = try sectionLookup(wanted)
        guard case .unavailable(let why) = bySection else { return bySection }
        let byDynamic = try dynamicLookup(wanted)
        guard case .unavailable(let other) = byDynamic else { return byDynamic }
        return .unavailable("\(why); \(other)")
    }

    /// Finds `SHT_DYNSYM` and the string table it links to, and scans the symbols.
    private func sectionLookup(_ wanted: [UInt8]) throws(ELFError) -> ELFDynamicSymbolLookup {
        let sections = try sectionHeaders()
        guard !sections.isEmpty else { return .unavailable("no section headers") }
        guard let table = sections.first(where: { $0.type == ELFSectionHeader.dynamicSymbols }) else {
            return .unavailable("no dynamic symbol table section (.dynsym)")
        }
        guard Int(table.link) < sections.count, table.entrySize >= 24, table.size <= 1 << 26,
            sections[Int(table.link)].size <= 1 << 26
        else { throw .malformed("dynamic symbol table header does not add up") }
        var found: ELFSymbol?
        let read = withContents(of: sections[Int(table.link)]) { strings in
            withSymbols(in: table) { symbols in found = symbols.first { $0.isNamed(wanted, in: strings) } } != nil
        }
        guard read == true else { throw .malformed("dynamic symbol or string table outside the file") }
        return found.map(ELFDynamicSymbolLookup.found) ?? .absent
    }

    /// Finds the symbol through `PT_DYNAMIC`: `DT_SYMTAB` and `DT_STRTAB`, and `DT_GNU_HASH` (a hash lookup) or
    /// `DT_HASH` (the symbol count), their addresses turned into file offsets through the `PT_LOAD` segments.
    private func dynamicLookup(_ wanted: [UInt8]) throws(ELFError) -> ELFDynamicSymbolLookup {
        let segments = try programHeaders()
        guard !segments.isEmpty else { return .unavailable("no program headers") }
        guard let dynamic = segments.last(where: { $0.type == ELFProgramHeader.dynamic }) else {
            return .unavailable("no PT_DYNAMIC segment")
        }
        let loads = segments.filter { $0.type == ELFProgramHeader.load }
        let entries =
            dynamic.fileSize <= 1 << 20
            ? withBytes(at: dynamic.offset, count: dynamic.fileSize) { entries in
                var tags: [UInt64: UInt64] = [:]
                for index in 0..<(entries.count / 16) {
                    let tag = entries.u64(index * 16)
                    if tag == 0 { break }
                    tags[tag] = entries.u64(index * 16 + 8)
                }
                return tags
            } : nil
        guard let tags = entries else { throw .malformed("PT_DYNAMIC outside the file") }
        // An address inside a PT_LOAD, as a file offset; nil when no segment holds it or when the segment's
        // p_offset puts it beyond any file (the sum is checked: p_offset comes from the file).
        func offset(_ address: UInt64) -> Int? {
            guard let load = loads.first(where: { address >= $0.address && address - $0.address < $0.fileSize }) else {
                return nil
            }
            let (sum, overflow) = (address - load.address).addingReportingOverflow(load.offset)
            return overflow ? nil : Int(exactly: sum)
        }
        guard let symtab = tags[6].flatMap(offset), let strtab = tags[5].flatMap(offset), let size = tags[10],
            size <= 1 << 26, let strings = bytes.withBytes(at: strtab, count: Int(size), { [UInt8]($0) })
        else { throw .malformed("PT_DYNAMIC lacks a readable DT_SYMTAB, DT_STRTAB or DT_STRSZ") }
        /// The symbol at `index` when it has the name, nil when it has another.
        func symbol(_ index: Int) throws(ELFError) -> ELFSymbol? {
            guard let at = Self.checked(symtab, plus: index, times: 24),
                let symbol = bytes.withBytes(at: at, count: 24, { ELFSymbol($0, at: 0) })
            else { throw .malformed("dynamic symbol #\(index) outside the file") }
            return strings.withUnsafeBytes { symbol.isNamed(wanted, in: $0) } ? symbol : nil
        }
        func u32(at offset: Int) -> UInt32? { bytes.withBytes(at: offset, count: 4) { $0.u32(0) } }

        if let gnu = tags[0x6fff_fef5].flatMap(offset),
            let header = bytes.withBytes(at: gnu, count: 16, { ($0.u32(0), $0.u32(4), $0.u32(8)) })
        {
            let buckets = Int(header.0)
            let symoffset = Int(header.1)
            let bloomWords = Int(header.2)
            guard buckets > 0, buckets < 1 << 24, bloomWords < 1 << 24 else {
                throw .malformed("DT_GNU_HASH does not add up")
            }
            let hash = wanted.reduce(UInt32(5381)) { $0 &* 33 &+ UInt32($1) }
            // The table's position comes from the file: every sum is checked, and a sum beyond any file is
            // the same refusal as a table outside this one.
            guard let bucketsAt = Self.checked(gnu, plus: 2 + bloomWords, times: 8),
                let bucketAt = Self.checked(bucketsAt, plus: Int(hash % UInt32(buckets)), times: 4),
                let bucket = u32(at: bucketAt),
                let chains = Self.checked(bucketsAt, plus: buckets, times: 4)
            else { throw .malformed("DT_GNU_HASH buckets outside the file") }
            var index = Int(bucket)
            guard index >= symoffset else { return .absent }
            while let linkAt = Self.checked(chains, plus: index - symoffset, times: 4), let value = u32(at: linkAt) {
                if value | 1 == hash | 1, let found = try symbol(index) { return .found(found) }
                if value & 1 == 1 { return .absent }
                index += 1
            }
            throw .malformed("DT_GNU_HASH chain outside the file")
        }
        if let sysv = tags[4].flatMap(offset), let count = bytes.withBytes(at: sysv, count: 8, { Int($0.u32(4)) }) {
            // nchain: the number of symbols.
            guard count < 1 << 24 else { throw .malformed("DT_HASH does not add up") }
            for index in 0..<count {
                if let found = try symbol(index) { return .found(found) }
            }
            return .absent
        }
        return .unavailable("no DT_GNU_HASH or DT_HASH to size the dynamic symbol table")
    }

    /// `base + count * size`, or nil when it overflows: the operands come from the file.
    private static func checked(_ base: Int, plus count: Int, times size: Int) -> Int? {
        let (product, productOverflow) = count.multipliedReportingOverflow(by: size)
        let (sum, sumOverflow) = base.addingReportingOverflow(product)
        return productOverflow || sumOverflow ? nil : sum
    }
}
