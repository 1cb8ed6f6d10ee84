/// Reads DWARF 2 to 5 in place from the mapped file, reading only what the looked-up addresses need.
///
/// ```
/// open:   unit headers + each unit's first DIE ──▶ unit ranges (sorted)     (no other DIE, no line table)
/// lookup: address ──▶ unit ──▶ its line program + its subprograms' ranges ──▶ CompileUnitTable
///                           └─▶ the hit subprogram's inlined subroutines, read on the first hit
/// ```
///
/// It answers what ``DwarfReader`` (libdwarf) answers, for a fraction of the cost on a large binary: libdwarf
/// copies whole sections into memory, allocates per DIE and attribute, and finds a DIE's unit by walking a list
/// of every unit read so far. Files it cannot read in place (compressed debug sections) are left to libdwarf.
///
/// Every read is bounds-checked (``DWARFCursor``); a unit that cannot be parsed is skipped, never trusted.
/// Not thread-safe: it lives inside the ``Symbolicator``'s mutex.
final class NativeDWARFReader: DebugInfoReader {
    /// What a compile unit's header and first DIE say.
    struct Unit {
        var offset: Int
        var end: Int
        var firstDie: Int
        var version: UInt16
        var offsetSize: Int
        var addressSize: Int
        var abbrevOffset: Int
        var base: UInt64 = 0
        var lineOffset: UInt64?
        var isSwift = false
        var compDir: AttributeValue?
        var strOffsetsBase: UInt64?
        var addrBase: UInt64?
        var rnglistsBase: UInt64?
        var table: CompileUnitTable?
        var failed = false
    }

    /// An attribute's form and raw value: a number, an offset, an index or (inline strings) a position.
    struct AttributeValue {
        var form: UInt64
        var value: UInt64
    }

    let image: ELFImage
    private let info: DWARFSection
    private let abbrev: DWARFSection
    private let line: DWARFSection
    private let str: DWARFSection
    private let lineStr: DWARFSection
    private let strOffsets: DWARFSection
    private let addr: DWARFSection
    private let ranges: DWARFSection
    private let rnglists: DWARFSection
    /// `.debug_names`, or empty: read into ``nameIndex`` when a batch first asks it.
    private let namesSection: DWARFSection
    /// The name index, made the first time a batch's jobs are made (on the thread that owns the reader), then only
    /// read; nil when the module has none.
    private lazy var nameIndex: NameIndex? = {
        guard namesSection.count > 0 else { return nil }
        let index = NameIndex(namesSection, strings: str)
        return index.isEmpty ? nil : index
    }()
    private(set) var units: [Unit] = []
    private var unitIndex = UnitRangeIndex()
    private var abbrevTables: [Int: AbbrevTable] = [:]
    /// Where the last unit DIE's declaration was found: (table offset, declaration offset).
    private var abbrevResume: (table: Int, offset: Int)?
    private var names = DIENameCache()

    /// Reads the unit index of `image`'s DWARF; nil when the file has no `.debug_info`, or has debug sections that
    /// cannot be read in place (compressed), which libdwarf is left to read.
    init?(image: ELFImage) {
        self.image = image
        let names = [
            ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str", ".debug_str_offsets",
            ".debug_addr", ".debug_ranges", ".debug_rnglists",
        ]
        var sections: [DWARFSection] = []
        for name in names {
            switch image.sectionBytes(named: name) {
            case .absent: sections.append(.empty)
            case .bytes(let bytes): sections.append(bytes)
            case .unusable: return nil
            }
        }
        // Compressed sections carry another name in older toolchains.
        if image.sections.contains(where: { $0.name.hasPrefix(".zdebug_") }) { return nil }
        guard sections[0].count > 0 else { return nil }
        (info, abbrev, line, str, lineStr, strOffsets) = (
            sections[0], sections[1], sections[2], sections[3], sections[4], sections[5]
        )
        (addr, self.ranges, rnglists) = (sections[6], sections[7], sections[8])
        // Only an aid: an index that cannot be read in place leaves every unit to be walked.
        if case .bytes(let names) = image.sectionBytes(named: ".debug_names") {
            namesSection = names
        } else {
            namesSection = .empty
        }
        // A file whose units cannot be read here is not handed to libdwarf either: its names come from .symtab.
        indexUnits()
    }

    // MARK: Unit index

    private func indexUnits() {
        var cursor = DWARFCursor(info, at: 0)
        while !cursor.isAtEnd {
            let start = cursor.offset
            guard let (length, offsetSize) = cursor.initialLength() else { break }
            let bodyStart = cursor.offset
            guard length <= UInt64(info.count - bodyStart) else { break }
            let end = bodyStart + Int(length)
            let version = cursor.u16()
            var unitType: UInt8 = 1  // DW_UT_compile
            var addressSize = 0
            var abbrevOffset: UInt64 = 0
            if version >= 5 {
                unitType = cursor.u8()
                addressSize = Int(cursor.u8())
                abbrevOffset = cursor.unsigned(size: offsetSize)
                switch unitType {
                case 4, 5: cursor.skip(8)  // skeleton, split_compile: dwo_id
                case 2, 6:  // type, split_type: signature, type offset
                    cursor.skip(8)
                    cursor.skip(offsetSize)
                default: break
                }
            } else {
                abbrevOffset = cursor.unsigned(size: offsetSize)
                addressSize = Int(cursor.u8())
            }
            let firstDie = cursor.offset
            cursor.seek(to: end)
            // Type units hold no code; unknown versions and address sizes cannot be read.
            guard version >= 2, version <= 5, unitType != 2, unitType != 6,
                addressSize == 4 || addressSize == 8, firstDie <= end,
                let abbrevOffset = Int(exactly: abbrevOffset)
            else { continue }
            var unit = Unit(
                offset: start, end: end, firstDie: firstDie, version: version, offsetSize: offsetSize,
                addressSize: addressSize, abbrevOffset: abbrevOffset)
            guard let (unitRanges, hasChildren) = readUnitDie(&unit) else { continue }
            unitIndex.add(unit: units.count, ranges: unitRanges, mayHoldFunctions: hasChildren)
            units.append(unit)
        }
        unitIndex.finish()
    }

    /// Reads the unit DIE's attributes into `unit`; its address ranges and whether it has children (functions, a
    /// module, types), or nil when it cannot be read.
    private func readUnitDie(_ unit: inout Unit) -> (ranges: [(low: UInt64, high: UInt64)], hasChildren: Bool)? {
        var cursor = DWARFCursor(info, at: unit.firstDie)
        let code = cursor.uleb()
        guard !cursor.failed, code != 0 else { return nil }
        // Units of one object file share its abbreviation table, each adding its own declarations after those of
        // the unit before: the search resumes where the previous unit's was found.
        var found: (tag: UInt64, hasChildren: Bool, declarationOffset: Int, specsOffset: Int)? = nil
        if let resume = abbrevResume, resume.table == unit.abbrevOffset {
            found = AbbrevTable.locate(code: code, in: abbrev, at: resume.offset)
        }
        guard let declaration = found ?? AbbrevTable.locate(code: code, in: abbrev, at: unit.abbrevOffset) else {
            return nil
        }
        abbrevResume = (unit.abbrevOffset, declaration.declarationOffset)
        var die = DieAttributes()
        var specs = DWARFCursor(abbrev, at: declaration.specsOffset)
        while !specs.isAtEnd && !cursor.failed {
            let attribute = specs.uleb()
            let form = specs.uleb()
            if attribute == 0 && form == 0 { break }
            let spec = AbbrevTable.Spec(
                attribute: attribute, form: form, implicitConst: form == 0x21 ? specs.sleb() : 0)
            let value = readValue(spec, &cursor, unit)
            switch spec.attribute {
            case 0x11: die.lowPC = value  // DW_AT_low_pc
            case 0x12: die.highPC = value  // DW_AT_high_pc
            case 0x55: die.ranges = value  // DW_AT_ranges
            case 0x10: unit.lineOffset = value.value  // DW_AT_stmt_list
            case 0x13: unit.isSwift = value.value == 0x1e  // DW_AT_language: DW_LANG_Swift
            case 0x1b: unit.compDir = value  // DW_AT_comp_dir
            case 0x72: unit.strOffsetsBase = value.value  // DW_AT_str_offsets_base
            case 0x73: unit.addrBase = value.value  // DW_AT_addr_base
            case 0x74: unit.rnglistsBase = value.value  // DW_AT_rnglists_base
            default: break
            }
        }
        // DW_TAG_compile_unit, DW_TAG_partial_unit, DW_TAG_skeleton_unit.
        let tag = declaration.tag
        guard !cursor.failed, !specs.failed, tag == 0x11 || tag == 0x3c || tag == 0x4a else { return nil }
        // The unit's base address is its low_pc; addrx forms need the addr_base read above.
        unit.base = die.lowPC.flatMap { address($0, unit) } ?? 0
        return (pcRanges(die, unit), declaration.hasChildren)
    }

    /// The units whose ranges contain `address`, best candidate first.
    func units(containing address: UInt64) -> [Int] {
        unitIndex.units(containing: address) { completeTable(forUnit: $0) }
    }

    /// The unit holding the DIE at `offset` (section offset).
    private func unit(holding offset: UInt64) -> Int? {
        guard let offset = Int(exactly: offset) else { return nil }
        let index = units.countStarting(atOrBefore: UInt64(offset), { UInt64($0.offset) }) - 1
        guard index >= 0, offset >= units[index].firstDie, offset < units[index].end else { return nil }
        return index
    }

    /// The unit's abbreviations, parsed once per table (units may share one) and unit shape.
    private func abbrevTable(_ unit: Unit) -> AbbrevTable {
        let shape = Self.abbrevShape(unit)
        if let table = abbrevTables[unit.abbrevOffset], table.shape == shape { return table }
        let table = AbbrevTable(abbrev, at: unit.abbrevOffset, shape: shape)
        abbrevTables[unit.abbrevOffset] = table
        return table
    }

    /// What a unit's abbreviations are parsed for: its address and offset sizes and its version.
    private static func abbrevShape(_ unit: Unit) -> AbbrevTable.Shape {
        AbbrevTable.Shape(addressSize: unit.addressSize, offsetSize: unit.offsetSize, version: unit.version)
    }

    // MARK: Attribute values

    /// Reads one attribute value, or skips it (blocks, expressions) with a zero value. Unknown forms fail the
    /// cursor: the rest of the DIE cannot be found.
    private func readValue(_ spec: AbbrevTable.Spec, _ cursor: inout DWARFCursor, _ unit: Unit) -> AttributeValue {
        var form = spec.form
        if form == 0x16 { form = cursor.uleb() }  // DW_FORM_indirect
        let value: UInt64
        switch form {
        case 0x01: value = cursor.unsigned(size: unit.addressSize)  // addr
        case 0x03:  // block2
            let length = cursor.u16()
            cursor.skip(Int(length))
            value = 0
        case 0x04:  // block4
            let length = cursor.u32()
            cursor.skip(UInt64(length))
            value = 0
        case 0x05: value = UInt64(cursor.u16())  // data2
        case 0x06: value = UInt64(cursor.u32())  // data4
        case 0x07: value = cursor.u64()  // data8
        case 0x08: value = cursor.cString().map { UInt64($0) } ?? 0  // string: its position in .debug_info
        case 0x09, 0x18:  // block, exprloc
            let length = cursor.uleb()
            cursor.skip(length)
            value = 0
        case 0x0a:  // block1
            let length = cursor.u8()
            cursor.skip(Int(length))
            value = 0
        case 0x0b, 0x0c, 0x11, 0x25, 0x29: value = UInt64(cursor.u8())  // data1, flag, ref1, strx1, addrx1
        case 0x0d: value = UInt64(bitPattern: cursor.sleb())  // sdata
        case 0x0e, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21: value = cursor.unsigned(size: unit.offsetSize)
        // udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU_addr_index, GNU_str_index
        case 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02: value = cursor.uleb()
        case 0x10: value = cursor.unsigned(size: unit.version <= 2 ? unit.addressSize : unit.offsetSize)  // ref_addr
        case 0x12, 0x26, 0x2a: value = UInt64(cursor.u16())  // ref2, strx2, addrx2
        case 0x13, 0x1c, 0x28, 0x2c: value = UInt64(cursor.u32())  // ref4, ref_sup4, strx4, addrx4
        case 0x14, 0x20, 0x24: value = cursor.u64()  // ref8, ref_sig8, ref_sup8
        case 0x19: value = 1  // flag_present
        case 0x1e:  // data16
            cursor.skip(16)
            value = 0
        case 0x21: value = UInt64(bitPattern: spec.implicitConst)  // implicit_const
        case 0x27, 0x2b: value = UInt64(cursor.u24())  // strx3, addrx3
        default:
            value = 0
            cursor.skip(Int.max)  // fails the cursor
        }
        return AttributeValue(form: form, value: value)
    }

    private func string(_ attribute: AttributeValue, _ unit: Unit) -> String? {
        switch attribute.form {
        case 0x08: return info.string(at: attribute.value)
        case 0x0e: return str.string(at: attribute.value)
        case 0x1f: return lineStr.string(at: attribute.value)
        case 0x1a, 0x25, 0x26, 0x27, 0x28, 0x1f02:
            guard
                let offset = indirect(
                    attribute.value, base: unit.strOffsetsBase ?? UInt64(2 * unit.offsetSize),
                    size: unit.offsetSize, in: strOffsets)
            else { return nil }
            return str.string(at: offset)
        default: return nil
        }
    }

    private func address(_ attribute: AttributeValue, _ unit: Unit) -> UInt64? {
        switch attribute.form {
        case 0x01: return attribute.value
        case 0x1b, 0x29, 0x2a, 0x2b, 0x2c, 0x1f01:
            return indirect(attribute.value, base: unit.addrBase ?? 8, size: unit.addressSize, in: addr)
        default: return nil
        }
    }

    /// The value at `base + index * size` of a table section (`.debug_addr`, `.debug_str_offsets`, …).
    private func indirect(_ index: UInt64, base: UInt64, size: Int, in section: DWARFSection) -> UInt64? {
        let (scaled, overflow1) = index.multipliedReportingOverflow(by: UInt64(size))
        let (offset, overflow2) = base.addingReportingOverflow(scaled)
        guard !overflow1, !overflow2, let at = Int(exactly: offset) else { return nil }
        var cursor = DWARFCursor(section, at: at)
        let value = cursor.unsigned(size: size)
        return cursor.failed ? nil : value
    }

    /// The section offset of the DIE a reference attribute points to.
    private func reference(_ attribute: AttributeValue, _ unit: Unit) -> UInt64? {
        switch attribute.form {
        case 0x11, 0x12, 0x13, 0x14, 0x15:
            let (offset, overflow) = UInt64(unit.offset).addingReportingOverflow(attribute.value)
            return overflow ? nil : offset
        case 0x10: return attribute.value
        default: return nil
        }
    }

    // MARK: Address ranges

    /// The attributes of a DIE that a walk looks at.
    struct DieAttributes {
        var lowPC: AttributeValue?
        var highPC: AttributeValue?
        var ranges: AttributeValue?
        var callFile: UInt64 = 0
        var callLine: UInt64 = 0
        var callColumn: UInt64 = 0
        var sibling: UInt64?
    }

    /// From DW_AT_ranges when present, else DW_AT_low_pc with DW_AT_high_pc (an address, or an offset from
    /// low_pc). Empty ranges are dropped.
    private func pcRanges(_ die: DieAttributes, _ unit: Unit) -> [(low: UInt64, high: UInt64)] {
        if let rangesAttribute = die.ranges {
            if rangesAttribute.form == 0x23 {  // rnglistx: an index into the unit's offset table
                guard let base = unit.rnglistsBase,
                    let offset = indirect(rangesAttribute.value, base: base, size: unit.offsetSize, in: rnglists)
                else { return [] }
                let (listOffset, overflow) = base.addingReportingOverflow(offset)
                return overflow ? [] : rangeList(at: listOffset, unit)
            }
            return unit.version >= 5
                ? rangeList(at: rangesAttribute.value, unit) : debugRanges(at: rangesAttribute.value, unit)
        }
        guard let lowAttribute = die.lowPC, let low = address(lowAttribute, unit), let highAttribute = die.highPC
        else { return [] }
        var high: UInt64
        switch highAttribute.form {
        case 0x01, 0x1b, 0x29, 0x2a, 0x2b, 0x2c, 0x1f01:
            guard let value = address(highAttribute, unit) else { return [] }
            high = value
        case 0x05, 0x06, 0x07, 0x0b, 0x0d, 0x0f, 0x21:
            high = low &+ highAttribute.value
        default:
            return []
        }
        return high > low ? [(low, high)] : []
    }

    /// A DWARF 5 range list (`.debug_rnglists`) at `offset`.
    private func rangeList(at offset: UInt64, _ unit: Unit) -> [(low: UInt64, high: UInt64)] {
        guard let start = Int(exactly: offset) else { return [] }
        var cursor = DWARFCursor(rnglists, at: start)
        var base = unit.base
        var result: [(low: UInt64, high: UInt64)] = []
        var entries = 0
        while !cursor.isAtEnd && entries < 1 << 20 {
            entries += 1
            let kind = cursor.u8()
            switch kind {
            case 0: return result  // end_of_list
            case 1:  // base_addressx
                base = indirect(cursor.uleb(), base: unit.addrBase ?? 8, size: unit.addressSize, in: addr) ?? 0
            case 2:  // startx_endx
                let low = indirect(cursor.uleb(), base: unit.addrBase ?? 8, size: unit.addressSize, in: addr)
                let high = indirect(cursor.uleb(), base: unit.addrBase ?? 8, size: unit.addressSize, in: addr)
                if let low, let high, high > low { result.append((low, high)) }
            case 3:  // startx_length
                let low = indirect(cursor.uleb(), base: unit.addrBase ?? 8, size: unit.addressSize, in: addr)
                let length = cursor.uleb()
                if let low, low &+ length > low { result.append((low, low &+ length)) }
            case 4:  // offset_pair
                let low = base &+ cursor.uleb()
                let high = base &+ cursor.uleb()
                if high > low { result.append((low, high)) }
            case 5: base = cursor.unsigned(size: unit.addressSize)  // base_address
            case 6:  // start_end
                let low = cursor.unsigned(size: unit.addressSize)
                let high = cursor.unsigned(size: unit.addressSize)
                if high > low { result.append((low, high)) }
            case 7:  // start_length
                let low = cursor.unsigned(size: unit.addressSize)
                let length = cursor.uleb()
                if low &+ length > low { result.append((low, low &+ length)) }
            default:
                return cursor.failed ? [] : result
            }
        }
        return cursor.failed ? [] : result
    }

    /// A DWARF 2 to 4 range list (`.debug_ranges`) at `offset`.
    private func debugRanges(at offset: UInt64, _ unit: Unit) -> [(low: UInt64, high: UInt64)] {
        guard let start = Int(exactly: offset) else { return [] }
        var cursor = DWARFCursor(ranges, at: start)
        let selection: UInt64 = unit.addressSize == 8 ? .max : 0xFFFF_FFFF
        var base = unit.base
        var result: [(low: UInt64, high: UInt64)] = []
        var entries = 0
        while !cursor.isAtEnd && entries < 1 << 20 {
            entries += 1
            let first = cursor.unsigned(size: unit.addressSize)
            let second = cursor.unsigned(size: unit.addressSize)
            if cursor.failed { break }
            if first == 0 && second == 0 { break }
            if first == selection {
                base = second
                continue
            }
            let low = base &+ first
            let high = base &+ second
            if high > low { result.append((low, high)) }
        }
        return result
    }

    // MARK: Compile unit tables

    /// The table of `unit`, built on first use; nil when the unit cannot be read. It may be partial (see
    /// ``CompileUnitTable/isPartial``): ``scopeChain(unit:address:)`` completes it when an address misses it.
    func table(forUnit unit: Int) -> CompileUnitTable? {
        guard unit >= 0, unit < units.count else { return nil }
        if let table = units[unit].table { return table }
        if units[unit].failed { return nil }
        let table = buildTable(units[unit], abbrevTable(units[unit]))
        units[unit].table = table
        return table
    }

    /// The table of `unit` with every function of the unit: a partial one is replaced by the whole unit's.
    private func completeTable(forUnit unit: Int) -> CompileUnitTable? {
        guard let table = table(forUnit: unit) else { return nil }
        guard table.isPartial else { return table }
        let complete = buildTable(units[unit], abbrevTable(units[unit]))
        units[unit].table = complete
        return complete
    }

    /// What building one unit's table needs: the reader (read only), the unit, and its abbreviations.
    struct TableJob: @unchecked Sendable {
        // @unchecked: the reader is not Sendable, and a job only reads its sections (``build(_:)``), which are
        // never written. The jobs of a batch run while the thread that made them waits for them, holding the
        // symbolicator's lock, so nothing changes the reader meanwhile.
        let reader: NativeDWARFReader
        let index: Int
        let unit: Unit
        /// The unit's abbreviations when the reader has them already; else the job parses them.
        let abbrevs: AbbrevTable?
        /// The addresses that fall in the unit: the inlined calls of the functions holding them are read too, and
        /// the names of every scope covering them.
        var addresses: [UInt64]
        /// The name of the symbol covering each address (nil when none is known), and the index to find their
        /// functions' DIEs in: with both, the job reads those DIEs instead of walking the whole unit.
        var symbolNames: [String?]
        let nameIndex: NameIndex?
    }

    /// What a job builds: the unit's table and abbreviations, and the names of the scopes covering its addresses
    /// (by DIE offset), each linkage name with its demangled form.
    struct BuiltUnit: Sendable {
        var table: CompileUnitTable
        var abbrevs: AbbrevTable
        var names: [(offset: UInt64, name: String?, linkageName: String?)]
        var demangled: [(name: String, demangled: String)]
    }

    /// The units `addresses` fall in (the best candidate of each) whose tables are not built yet, each once, ready
    /// to be built on any thread (``build(_:)``) and kept (``store(_:for:)``). `symbolName` gives the name of the
    /// symbol covering an address, when the module's symbol table is at hand: with the module's name index, a job
    /// then reads only the functions its addresses fall in.
    func tableJobs(forAddresses addresses: [UInt64], symbolName: (UInt64) -> String? = { _ in nil }) -> [TableJob] {
        var jobs: [TableJob] = []
        var jobOfUnit: [Int: Int] = [:]
        let index = nameIndex
        for address in addresses {
            guard let unit = units(containing: address).first, units[unit].table == nil, !units[unit].failed
            else { continue }
            let name = index == nil ? nil : symbolName(address)
            if let job = jobOfUnit[unit] {
                jobs[job].addresses.append(address)
                jobs[job].symbolNames.append(name)
                continue
            }
            jobOfUnit[unit] = jobs.count
            jobs.append(job(forUnit: unit, addresses: [address], symbolNames: [name], nameIndex: index))
        }
        return jobs
    }

    /// The job that builds unit `index`'s table: abbreviations parsed before are reused; the others are parsed by
    /// the job, on its thread.
    private func job(
        forUnit index: Int, addresses: [UInt64], symbolNames: [String?] = [], nameIndex: NameIndex? = nil
    ) -> TableJob {
        let unit = units[index]
        let cached = abbrevTables[unit.abbrevOffset]
        return TableJob(
            reader: self, index: index, unit: unit, abbrevs: cached?.shape == Self.abbrevShape(unit) ? cached : nil,
            addresses: addresses, symbolNames: symbolNames, nameIndex: nameIndex)
    }

    /// Builds, on up to `threads` threads, the tables of the units whose DIE gives no address ranges but may hold
    /// functions, when one of `addresses` falls in no unit's ranges: finding that address's unit
    /// (``units(containing:)``) would build all of them on the thread asking, one after another, and a producer
    /// that leaves the ranges out leaves them out of every unit. Units often share one table of abbreviations, so
    /// each table is parsed once, all of them on every thread, and then the units are read. Called from the thread
    /// that owns the reader, which waits for the work.
    func readUnindexedUnits(forAddresses addresses: [UInt64], threads: Int) {
        let pending = unitIndex.unindexedUnits(neededFor: addresses).filter {
            $0 >= 0 && $0 < units.count && units[$0].table == nil && !units[$0].failed
        }
        guard threads > 1, pending.count > 1 else { return }
        var missing: [AbbrevJob] = []
        var seen: Set<Int> = []
        for index in pending {
            let unit = units[index]
            if abbrevTables[unit.abbrevOffset] == nil, seen.insert(unit.abbrevOffset).inserted {
                missing.append(AbbrevJob(section: abbrev, offset: unit.abbrevOffset, shape: Self.abbrevShape(unit)))
            }
        }
        let parsed = ParallelWork.map(missing, threads: threads) {
            AbbrevTable($0.section, at: $0.offset, shape: $0.shape)
        }
        for (job, table) in zip(missing, parsed) { abbrevTables[job.offset] = table }
        let jobs = pending.map { job(forUnit: $0, addresses: []) }
        let built = ParallelWork.map(jobs, threads: threads) { Self.build($0) }
        for (job, unit) in zip(jobs, built) { store(unit, for: job) }
    }

    /// One table of abbreviations to parse on any thread.
    private struct AbbrevJob: @unchecked Sendable {
        // @unchecked: the section is a pointer into the module's mapped file, which is only read and outlives the
        // work (the reader keeps it mapped, and its owner waits for the work).
        let section: DWARFSection
        let offset: Int
        let shape: AbbrevTable.Shape
    }

    /// The table of a job's unit, with the inlined calls of the functions holding its addresses, and the names of
    /// the scopes covering them, demangled: what symbolicating the addresses reads from the unit. Reads the
    /// sections and nothing the reader changes: jobs may run at once.
    static func build(_ job: TableJob) -> BuiltUnit {
        let reader = job.reader
        let abbrevs =
            job.abbrevs ?? AbbrevTable(reader.abbrev, at: job.unit.abbrevOffset, shape: abbrevShape(job.unit))
        var table = reader.indexedTable(job, abbrevs) ?? reader.buildTable(job.unit, abbrevs)
        var offsets: [UInt64] = []
        for address in job.addresses {
            guard let top = table.topLevelScope(containing: address) else { continue }
            if !table.scopes[Int(top)].childrenLoaded {
                reader.loadInlinedCalls(of: top, in: &table, job.unit, abbrevs)
            }
            for scope in table.chain(from: top, containing: address) {
                offsets.append(table.scopes[Int(scope)].dieOffset)
            }
        }
        // A name found through a DIE of another unit is left to the reader's own lookup, which has that unit's
        // abbreviations: a job has only its own.
        var names = DIENameCache()
        var found: [(offset: UInt64, name: String?, linkageName: String?)] = []
        var demangled: [(name: String, demangled: String)] = []
        var seen: Set<String> = []
        for offset in offsets where !names.contains(offset) {
            var complete = true
            let pair = names.names(ofDieAt: offset) { current, name, linkageName in
                guard current >= UInt64(job.unit.firstDie), current < UInt64(job.unit.end) else {
                    complete = false
                    return nil
                }
                return reader.readNames(at: current, job.unit, abbrevs, name: &name, linkageName: &linkageName)
            }
            guard complete else { continue }
            found.append((offset, pair.name, pair.linkageName))
            if let linkageName = pair.linkageName, seen.insert(linkageName).inserted {
                demangled.append((linkageName, Demangler.demangle(linkageName)))
            }
        }
        return BuiltUnit(table: table, abbrevs: abbrevs, names: found, demangled: demangled)
    }

    /// Keeps what a job built: the unit's table, its abbreviations and the names it read.
    func store(_ built: BuiltUnit, for job: TableJob) {
        if units[job.index].table == nil { units[job.index].table = built.table }
        if abbrevTables[job.unit.abbrevOffset] == nil { abbrevTables[job.unit.abbrevOffset] = built.abbrevs }
        for entry in built.names {
            names.keep(offset: entry.offset, name: entry.name, linkageName: entry.linkageName)
        }
    }

    /// A unit's line table and function scopes, read from the sections alone: nothing of the reader changes, so
    /// several units' tables can be built at once.
    private func buildTable(_ info: Unit, _ abbrevs: AbbrevTable) -> CompileUnitTable {
        var table = CompileUnitTable()
        readLines(info, into: &table)
        var cursor = DWARFCursor(self.info, at: info.firstDie)
        // The unit DIE itself: skipped, then its children are walked.
        if let declaration = readCode(&cursor, abbrevs), declaration.hasChildren {
            skipAttributes(declaration, &cursor, info, abbrevs)
            walkChildren(&cursor, info, abbrevs, mode: .subprograms, parent: nil, into: &table, depth: 0)
        }
        table.finish()
        return table
    }

    /// The table of a job's unit with only the functions its addresses fall in, each found by the name of the
    /// symbol covering the address in the name index, instead of walking every DIE of the unit; and the line-table
    /// sequences those functions' ranges meet. Nil, for the unit to be walked, when one address's function is not
    /// found so: no index or no symbol name, a name the index does not give for this unit, or no such DIE whose
    /// ranges hold the address. Reads the sections alone.
    private func indexedTable(_ job: TableJob, _ abbrevs: AbbrevTable) -> CompileUnitTable? {
        guard let index = job.nameIndex, !job.addresses.isEmpty, job.symbolNames.count == job.addresses.count else {
            return nil
        }
        var table = CompileUnitTable()
        table.isPartial = true
        for (address, name) in zip(job.addresses, job.symbolNames) {
            if table.scopes.contains(where: { table.contains($0, address) }) { continue }
            guard let name else { return nil }
            var found = false
            for offset in index.dies(named: name, tag: 0x2e, inUnitAt: job.unit.offset) {
                guard let (scope, ranges) = subprogram(at: offset, job.unit, abbrevs),
                    ranges.contains(where: { address >= $0.low && address < $0.high })
                else { continue }
                _ = table.addScope(scope, ranges: ranges, parent: nil)
                found = true
                break
            }
            guard found else { return nil }
        }
        // The line table of the functions found: the rows of the sequences their ranges meet.
        readLines(job.unit, into: &table, keeping: table.ranges)
        table.finish()
        return table
    }

    /// The subprogram whose DIE is at `offset` of `unit` as a scope, with its ranges; nil when the DIE is not a
    /// subprogram, cannot be read, or has no ranges.
    private func subprogram(
        at offset: UInt64, _ unit: Unit, _ abbrevs: AbbrevTable
    ) -> (scope: CompileUnitTable.Scope, ranges: [(low: UInt64, high: UInt64)])? {
        guard let start = Int(exactly: offset), start >= unit.firstDie, start < unit.end else { return nil }
        var cursor = DWARFCursor(info, at: start)
        guard let declaration = readCode(&cursor, abbrevs), declaration.tag == 0x2e else { return nil }
        let attributes = readAttributes(declaration, &cursor, unit, abbrevs)
        guard !cursor.failed, cursor.offset <= unit.end else { return nil }
        return subprogramScope(attributes, dieOffset: offset, unit)
    }

    /// A subprogram DIE's scope, its children not read yet, and its ranges; nil when it has none (a declaration,
    /// or an abstract function inlined everywhere).
    private func subprogramScope(
        _ attributes: DieAttributes, dieOffset: UInt64, _ unit: Unit
    ) -> (scope: CompileUnitTable.Scope, ranges: [(low: UInt64, high: UInt64)])? {
        let ranges = pcRanges(attributes, unit)
        guard !ranges.isEmpty else { return nil }
        let entry = attributes.lowPC.flatMap { address($0, unit) } ?? ranges.map(\.low).min() ?? 0
        var scope = CompileUnitTable.Scope(
            dieOffset: dieOffset, entryAddress: entry, rangeStart: 0, rangeCount: 0, isInlined: false)
        scope.childrenLoaded = false
        return (scope, ranges)
    }

    /// What a DIE walk collects (see ``DwarfReader/WalkMode``).
    enum WalkMode {
        case subprograms
        case inlinedSubroutines
    }

    /// Reads a DIE's abbreviation code: its declaration, or nil for a null entry or an unknown code (which fails
    /// the cursor: the DIE's size is unknown).
    @inline(__always)
    private func readCode(_ cursor: inout DWARFCursor, _ abbrevs: AbbrevTable) -> AbbrevTable.Declaration? {
        let code = cursor.uleb()
        if code == 0 || cursor.failed { return nil }
        guard let declaration = abbrevs.declaration(code) else {
            cursor.skip(Int.max)
            return nil
        }
        return declaration
    }

    /// Skips a DIE's attributes: at once when their forms have fixed sizes (most DIEs), else one by one.
    @inline(__always)
    private func skipAttributes(
        _ declaration: AbbrevTable.Declaration, _ cursor: inout DWARFCursor, _ unit: Unit, _ abbrevs: AbbrevTable
    ) {
        if declaration.fixedSize >= 0 {
            cursor.skip(Int(declaration.fixedSize))
        } else {
            for index in declaration.specs { _ = readValue(abbrevs.spec(index), &cursor, unit) }
        }
    }

    /// Reads the attributes a walk looks at.
    private func readAttributes(
        _ declaration: AbbrevTable.Declaration, _ cursor: inout DWARFCursor, _ unit: Unit, _ abbrevs: AbbrevTable
    ) -> DieAttributes {
        var attributes = DieAttributes()
        for index in declaration.specs {
            let spec = abbrevs.spec(index)
            let value = readValue(spec, &cursor, unit)
            switch spec.attribute {
            case 0x11: attributes.lowPC = value
            case 0x12: attributes.highPC = value
            case 0x55: attributes.ranges = value
            case 0x58: attributes.callFile = value.value  // DW_AT_call_file
            case 0x59: attributes.callLine = value.value  // DW_AT_call_line
            case 0x57: attributes.callColumn = value.value  // DW_AT_call_column
            case 0x01: attributes.sibling = reference(value, unit)  // DW_AT_sibling
            default: break
            }
        }
        return attributes
    }

    /// Skips the children of the DIE just read (up to and including their null entry), without recursion.
    private func skipChildren(_ cursor: inout DWARFCursor, _ unit: Unit, _ abbrevs: AbbrevTable, sibling: UInt64?) {
        if let sibling, let target = Int(exactly: sibling), target > cursor.offset, target <= unit.end {
            cursor.seek(to: target)
            return
        }
        var depth = 1
        while depth > 0 && !cursor.failed && cursor.offset < unit.end {
            let code = cursor.uleb()
            if code == 0 {
                depth -= 1
                continue
            }
            guard let declaration = abbrevs.declaration(code) else {
                cursor.skip(Int.max)
                return
            }
            skipAttributes(declaration, &cursor, unit, abbrevs)
            if declaration.hasChildren { depth += 1 }
        }
    }

    /// Walks the DIEs from the cursor up to their null entry, as ``DwarfReader`` walks a DIE's children: the same
    /// tags are entered, the same scopes collected.
    private func walkChildren(
        _ cursor: inout DWARFCursor, _ unit: Unit, _ abbrevs: AbbrevTable, mode: WalkMode, parent: Int32?,
        into table: inout CompileUnitTable, depth: Int
    ) {
        while !cursor.failed && cursor.offset < unit.end {
            let dieOffset = UInt64(cursor.offset)
            guard let declaration = readCode(&cursor, abbrevs) else { return }
            let tag = declaration.tag
            let hasChildren = declaration.hasChildren
            // Only the DIEs that become scopes, or whose children may be skipped by their DW_AT_sibling, are read;
            // the others (types, variables, parameters: most DIEs) are stepped over.
            let isScope = (tag == 0x2e && mode == .subprograms) || (tag == 0x1d && mode == .inlinedSubroutines)
            var attributes = DieAttributes()
            if isScope || (hasChildren && declaration.hasSibling) {
                attributes = readAttributes(declaration, &cursor, unit, abbrevs)
            } else {
                skipAttributes(declaration, &cursor, unit, abbrevs)
            }
            if cursor.failed || cursor.offset > unit.end { return }
            var enter = false
            var childParent = parent
            switch (tag, mode) {
            case (0x2e, .subprograms):  // DW_TAG_subprogram
                if let (scope, ranges) = subprogramScope(attributes, dieOffset: dieOffset, unit) {
                    _ = table.addScope(scope, ranges: ranges, parent: nil)
                }
                // Swift nests closures inside their function, also inside abstract (inlined-everywhere) ones.
                enter = unit.isSwift
                childParent = nil
            case (0x1d, .inlinedSubroutines):  // DW_TAG_inlined_subroutine
                let ranges = pcRanges(attributes, unit)
                if let parent, !ranges.isEmpty {
                    let entry = attributes.lowPC.flatMap { address($0, unit) } ?? ranges.map(\.low).min() ?? 0
                    var scope = CompileUnitTable.Scope(
                        dieOffset: dieOffset, entryAddress: entry, rangeStart: 0, rangeCount: 0, isInlined: true)
                    scope.callFile = UInt32(truncatingIfNeeded: attributes.callFile)
                    scope.callLine = UInt32(truncatingIfNeeded: attributes.callLine)
                    scope.callColumn = UInt32(truncatingIfNeeded: attributes.callColumn)
                    if let index = table.addScope(scope, ranges: ranges, parent: parent) {
                        enter = true
                        childParent = index
                    }
                }
            case (0x0b, _), (0x32, _), (0x25, _):  // lexical_block, try_block, catch_block
                enter = true
            case (0x39, .subprograms):  // namespace
                enter = true
            case (0x1e, .subprograms):  // DW_TAG_module: Swift only (see DwarfReader)
                enter = unit.isSwift
            case (0x02, .subprograms), (0x13, .subprograms), (0x17, .subprograms), (0x04, .subprograms):
                enter = unit.isSwift  // class, structure, union, enumeration
            default:
                break
            }
            guard hasChildren else { continue }
            if enter && depth + 1 < 256 {
                walkChildren(
                    &cursor, unit, abbrevs, mode: mode, parent: childParent, into: &table, depth: depth + 1)
            } else {
                skipChildren(&cursor, unit, abbrevs, sibling: attributes.sibling)
            }
        }
    }

    /// The chain of scopes covering `address` in `unit`: the concrete subprogram first, the innermost inlined
    /// subroutine last. Reads the subprogram's inlined subroutines the first time it is hit.
    func scopeChain(unit: Int, address: UInt64) -> [Int32] {
        guard var table = table(forUnit: unit) else { return [] }
        if table.isPartial && table.topLevelScope(containing: address) == nil {
            guard let complete = completeTable(forUnit: unit) else { return [] }
            table = complete
        }
        guard let top = table.topLevelScope(containing: address) else { return [] }
        if !table.scopes[Int(top)].childrenLoaded {
            units[unit].table = nil  // moved out while it grows, so its arrays are not copied
            loadInlinedCalls(of: top, in: &table, units[unit], abbrevTable(units[unit]))
            units[unit].table = table
        }
        return table.chain(from: top, containing: address)
    }

    /// Reads the inlined subroutines of the subprogram `top` into `table`, once. Reads the sections and nothing the
    /// reader changes.
    private func loadInlinedCalls(
        of top: Int32, in table: inout CompileUnitTable, _ info: Unit, _ abbrevs: AbbrevTable
    ) {
        table.scopes[Int(top)].childrenLoaded = true
        guard let start = Int(exactly: table.scopes[Int(top)].dieOffset) else { return }
        var cursor = DWARFCursor(self.info, at: start)
        if let declaration = readCode(&cursor, abbrevs), declaration.hasChildren {
            skipAttributes(declaration, &cursor, info, abbrevs)
            walkChildren(&cursor, info, abbrevs, mode: .inlinedSubroutines, parent: top, into: &table, depth: 1)
        }
    }

    // MARK: Names

    /// DW_AT_name and the linkage name of the DIE at `offset`, following DW_AT_abstract_origin and
    /// DW_AT_specification for what the DIE itself lacks. Cached per offset.
    func names(ofDieAt offset: UInt64) -> (name: String?, linkageName: String?) {
        names.names(ofDieAt: offset) { current, name, linkageName in
            guard let index = unit(holding: current) else { return nil }
            let unit = units[index]
            return readNames(at: current, unit, abbrevTable(unit), name: &name, linkageName: &linkageName)
        }
    }

    /// Reads the DIE at `offset` of `unit`: fills in whichever of the two names is still nil, and gives the offset
    /// of its abstract origin or specification, nil when it has none or cannot be read. Reads the sections alone.
    private func readNames(
        at offset: UInt64, _ unit: Unit, _ abbrevs: AbbrevTable, name: inout String?, linkageName: inout String?
    ) -> UInt64? {
        guard let start = Int(exactly: offset) else { return nil }
        var cursor = DWARFCursor(info, at: start)
        let code = cursor.uleb()
        guard code != 0, let declaration = abbrevs.declaration(code) else { return nil }
        var origin: UInt64? = nil
        var specification: UInt64? = nil
        for specIndex in declaration.specs {
            let spec = abbrevs.spec(specIndex)
            let value = readValue(spec, &cursor, unit)
            if cursor.failed { break }
            switch spec.attribute {
            case 0x6e, 0x2007:  // DW_AT_linkage_name, DW_AT_MIPS_linkage_name
                if linkageName == nil { linkageName = string(value, unit) }
            case 0x03:  // DW_AT_name
                if name == nil { name = string(value, unit) }
            case 0x31: origin = reference(value, unit)  // DW_AT_abstract_origin
            case 0x47: specification = reference(value, unit)  // DW_AT_specification
            default: break
            }
        }
        return origin ?? specification
    }

    // MARK: Line tables

    /// Reads the unit's line program: its file table and every row.
    ///
    /// With `keeping`, only the sequences whose addresses meet one of its ranges are kept: for an address inside
    /// those ranges, the rows of the other sequences, wholly before or after, change no answer (unless sequences
    /// overlap, which no linker makes of placed code).
    private func readLines(
        _ unit: Unit, into table: inout CompileUnitTable, keeping: [(low: UInt64, high: UInt64)]? = nil
    ) {
        guard let lineOffset = unit.lineOffset, let start = Int(exactly: lineOffset) else { return }
        var cursor = DWARFCursor(line, at: start)
        guard let (length, offsetSize) = cursor.initialLength(), length <= UInt64(line.count - cursor.offset) else {
            return
        }
        let end = cursor.offset + Int(length)
        let version = cursor.u16()
        guard version >= 2, version <= 5 else { return }
        var addressSize = unit.addressSize
        if version >= 5 {
            addressSize = Int(cursor.u8())
            cursor.skip(1)  // segment selector size
        }
        let headerLength = cursor.unsigned(size: offsetSize)
        guard !cursor.failed, cursor.offset <= end, headerLength <= UInt64(end - cursor.offset) else { return }
        let programStart = cursor.offset + Int(headerLength)
        let minimumInstructionLength = UInt64(cursor.u8())
        if version >= 4 { cursor.skip(1) }  // maximum operations per instruction (VLIW only)
        cursor.skip(1)  // default_is_stmt: every row is kept, statement or not
        let lineBase = Int64(Int8(bitPattern: cursor.u8()))
        let lineRange = UInt64(cursor.u8())
        let opcodeBase = cursor.u8()
        var standardLengths: [UInt8] = []
        if opcodeBase > 1 {
            for _ in 1..<opcodeBase { standardLengths.append(cursor.u8()) }
        }
        guard !cursor.failed, lineRange != 0, opcodeBase != 0 else { return }

        let compDir = unit.compDir.flatMap { string($0, unit) } ?? ""
        let lineUnit = Unit(
            offset: unit.offset, end: unit.end, firstDie: unit.firstDie, version: unit.version,
            offsetSize: offsetSize, addressSize: unit.addressSize, abbrevOffset: unit.abbrevOffset,
            strOffsetsBase: unit.strOffsetsBase)
        if version >= 5 {
            guard readFiles5(&cursor, lineUnit, compDir: compDir, into: &table) else { return }
        } else {
            readFiles4(&cursor, compDir: compDir, into: &table)
        }
        guard !cursor.failed, programStart <= end else { return }
        cursor.seek(to: programStart)
        runProgram(
            &cursor, end: end,
            parameters: LineParameters(
                minimumInstructionLength: minimumInstructionLength, lineBase: lineBase, lineRange: lineRange,
                opcodeBase: opcodeBase, standardLengths: standardLengths, addressSize: addressSize,
                version: version),
            compDir: compDir, keeping: keeping, into: &table)
    }

    struct LineParameters {
        var minimumInstructionLength: UInt64
        var lineBase: Int64
        var lineRange: UInt64
        var opcodeBase: UInt8
        var standardLengths: [UInt8]
        var addressSize: Int
        var version: UInt16
    }

    /// DWARF 2 to 4: include directories, then files; numbering starts at 1, directory 0 is the compile directory.
    private func readFiles4(_ cursor: inout DWARFCursor, compDir: String, into table: inout CompileUnitTable) {
        var directories = [""]
        while !cursor.failed {
            guard let at = cursor.cString() else { return }
            guard let text = line.string(at: UInt64(at)), !text.isEmpty else { break }
            directories.append(text)
        }
        table.fileNumberBase = 1
        while !cursor.failed {
            guard let at = cursor.cString() else { return }
            guard let name = line.string(at: UInt64(at)), !name.isEmpty else { break }
            let directoryIndex = cursor.uleb()
            _ = cursor.uleb()  // modification time
            _ = cursor.uleb()  // length
            table.files.append(Self.path(name, directoryIndex, directories, compDir: compDir, version: 4))
        }
    }

    /// DWARF 5: entry formats, then directories and files, numbered from 0 (directory 0 is the compile directory).
    private func readFiles5(
        _ cursor: inout DWARFCursor, _ unit: Unit, compDir: String, into table: inout CompileUnitTable
    ) -> Bool {
        func formats() -> [(content: UInt64, form: UInt64)] {
            let count = Int(cursor.u8())
            var result: [(content: UInt64, form: UInt64)] = []
            for _ in 0..<count { result.append((cursor.uleb(), cursor.uleb())) }
            return result
        }
        func entries(_ formats: [(content: UInt64, form: UInt64)]) -> [(path: String?, directory: UInt64)]? {
            let count = cursor.uleb()
            // An entry takes at least a byte for each field whose form has bytes: a count the rest of the section
            // cannot hold is corrupt. Entries of no bytes at all (no real table has them) are few.
            let bytesPerEntry = UInt64(formats.filter { $0.form != 0x19 && $0.form != 0x21 }.count)
            let limit = bytesPerEntry == 0 ? 1 << 16 : UInt64(line.count - cursor.offset) / bytesPerEntry
            guard !cursor.failed, count <= limit else { return nil }
            var result: [(path: String?, directory: UInt64)] = []
            result.reserveCapacity(Int(min(count, 1024)))
            for _ in 0..<count {
                var path: String? = nil
                var directory: UInt64 = 0
                for format in formats {
                    let value = readValue(
                        AbbrevTable.Spec(attribute: 0, form: format.form, implicitConst: 0), &cursor, unit)
                    switch format.content {
                    case 1:  // DW_LNCT_path
                        path = value.form == 0x08 ? line.string(at: value.value) : string(value, unit)
                    case 2: directory = value.value  // DW_LNCT_directory_index
                    default: break
                    }
                }
                if cursor.failed { return nil }
                result.append((path, directory))
            }
            return result
        }
        guard let directoryEntries = entries(formats()) else { return false }
        let directories = directoryEntries.map { $0.path ?? "" }
        guard let fileEntries = entries(formats()) else { return false }
        table.fileNumberBase = 0
        table.files = fileEntries.map { entry in
            entry.path.map { Self.path($0, entry.directory, directories, compDir: compDir, version: 5) }
        }
        return true
    }

    private static func path(
        _ name: String, _ directoryIndex: UInt64, _ directories: [String], compDir: String, version: UInt16
    ) -> String {
        let directory = directoryIndex < UInt64(directories.count) ? directories[Int(directoryIndex)] : ""
        return DwarfReader.joinPath(
            compDir: compDir, directory: directory, file: name, useCompDir: version < 5 || directoryIndex != 0)
    }

    /// Runs the line-number program, appending every row it emits, or with `keeping`, the rows of each sequence
    /// that meets one of its ranges.
    private func runProgram(
        _ cursor: inout DWARFCursor, end: Int, parameters: LineParameters, compDir: String,
        keeping: [(low: UInt64, high: UInt64)]?, into table: inout CompileUnitTable
    ) {
        var address: UInt64 = 0
        var file: UInt64 = 1
        var lineNumber: Int64 = 1
        var column: UInt64 = 0
        func emit(_ isEnd: Bool) {
            table.rows.append(
                CompileUnitTable.LineRow(
                    address: address, file: UInt32(truncatingIfNeeded: file),
                    line: UInt32(truncatingIfNeeded: lineNumber), column: UInt32(truncatingIfNeeded: column),
                    isEndSequence: isEnd))
        }
        func reset() {
            address = 0
            file = 1
            lineNumber = 1
            column = 0
        }
        let minimum = parameters.minimumInstructionLength
        // A row takes 4 to 7 bytes of program in Swift's line tables (fewer in C's): room for the rows at once,
        // rather than the array copying them as it doubles.
        if keeping == nil { table.rows.reserveCapacity(table.rows.count + (end - cursor.offset) / 4) }
        var sequenceStart = table.rows.count
        /// Drops the sequence just ended when it meets none of the ranges kept.
        func endSequence() {
            defer { sequenceStart = table.rows.count }
            guard let keeping, sequenceStart < table.rows.count else { return }
            var (low, high) = (UInt64.max, UInt64.min)
            for row in table.rows[sequenceStart...] {
                low = min(low, row.address)
                high = max(high, row.address)
            }
            if !keeping.contains(where: { low < $0.high && high > $0.low }) {
                table.rows.removeSubrange(sequenceStart...)
            }
        }
        while !cursor.failed && cursor.offset < end {
            let opcode = cursor.u8()
            if opcode >= parameters.opcodeBase {
                let adjusted = UInt64(opcode - parameters.opcodeBase)
                address = address &+ (adjusted / parameters.lineRange) &* minimum
                lineNumber = lineNumber &+ parameters.lineBase &+ Int64(adjusted % parameters.lineRange)
                emit(false)
                continue
            }
            switch opcode {
            case 0:  // extended
                let length = cursor.uleb()
                guard !cursor.failed, cursor.offset <= end, length > 0, length <= UInt64(end - cursor.offset) else {
                    return
                }
                let next = cursor.offset + Int(length)
                let sub = cursor.u8()
                switch sub {
                case 1:  // end_sequence
                    emit(true)
                    endSequence()
                    reset()
                case 2:  // set_address
                    let size = Int(length) - 1
                    address = size == 4 || size == 8 ? cursor.unsigned(size: size) : 0
                case 3:  // define_file (DWARF 2 to 4)
                    if let at = cursor.cString(), let name = line.string(at: UInt64(at)) {
                        let directory = cursor.uleb()
                        table.files.append(Self.path(name, directory, [""], compDir: compDir, version: 4))
                    }
                default:
                    break
                }
                cursor.seek(to: next)
            case 1: emit(false)  // copy
            case 2: address = address &+ cursor.uleb() &* minimum  // advance_pc
            case 3: lineNumber = lineNumber &+ cursor.sleb()  // advance_line
            case 4: file = cursor.uleb()  // set_file
            case 5: column = cursor.uleb()  // set_column
            case 6, 7, 10, 11: break  // negate_stmt, set_basic_block, set_prologue_end, set_epilogue_begin
            case 8:  // const_add_pc
                let adjusted = UInt64(255 - parameters.opcodeBase)
                address = address &+ (adjusted / parameters.lineRange) &* minimum
            case 9: address = address &+ UInt64(cursor.u16())  // fixed_advance_pc
            default:  // set_isa (12) and opcodes this reader does not know: skip their ULEB operands
                let index = Int(opcode) - 1
                let operands = index < parameters.standardLengths.count ? parameters.standardLengths[index] : 0
                for _ in 0..<operands { _ = cursor.uleb() }
            }
        }
    }
}
