/// A module's DWARF 5 name index (`.debug_names`): the DIEs of its functions, types and variables by name, which
/// LLVM writes for every unit it compiles with debug information (swiftc always, DWARF 4 or 5; clang for DWARF 5
/// with `-gpubnames`, or tuned for LLDB).
///
/// ```
/// symbol's linkage name ──▶ hash ──▶ bucket ──▶ names with that hash ──▶ the one spelled so ──▶ its entries
///                                                                       (tag, unit, DIE offset in the unit)
/// ```
///
/// The reader asks it for the subprogram a symbol's name names, so that finding the function covering an address
/// does not walk every DIE of the unit (Swift's DWARF has no `DW_AT_sibling` to skip a type's members with). A
/// linker concatenates its object files' indexes: each is read as it stands. Every read is bounds-checked; an index
/// that cannot be read is left out, and a name it does not give sends the reader back to walking the unit.
struct NameIndex: @unchecked Sendable {
    // @unchecked: the two sections point into the module's mapped file, which is only read and stays mapped while
    // the reader that made the index lives; the index itself never changes once made.

    /// One object file's index: where its parts are. Nothing is copied out of it: a unit's offset, a name and an
    /// abbreviation are read in place when a lookup needs them.
    private struct Table {
        var offsetSize: Int
        /// The list of the `.debug_info` offsets of the units it indexes, in the order `DW_IDX_compile_unit`
        /// numbers them.
        var unitList: Int
        var unitCount: Int
        var bucketCount: Int
        var nameCount: Int
        var buckets: Int
        var hashes: Int
        var stringOffsets: Int
        var entryOffsets: Int
        /// The abbreviations: each a code, a tag, then index attributes (`DW_IDX_*`) and their forms, ending in
        /// two zeros; the list ends in a zero code or at the entry pool.
        var abbreviations: Int
        var entryPool: Int
        var end: Int
    }

    private let section: DWARFSection
    private let strings: DWARFSection
    private var tables: [Table] = []
    /// The table indexing each unit, by the unit's offset in `.debug_info`.
    private var tableOfUnit: [Int: Int] = [:]

    /// Reads the header and the unit list of every index in `section`; names and abbreviations are read when
    /// looked up. `strings` is `.debug_str`, which the names point into.
    init(_ section: DWARFSection, strings: DWARFSection) {
        self.section = section
        self.strings = strings
        var cursor = DWARFCursor(section, at: 0)
        while !cursor.isAtEnd {
            guard let (length, offsetSize) = cursor.initialLength() else { break }
            let start = cursor.offset
            guard length <= UInt64(section.count - start) else { break }
            let end = start + Int(length)
            if let table = Self.readTable(DWARFCursor(section, at: start), end: end, offsetSize: offsetSize),
                let units = unitOffsets(table)
            {
                for unit in units where tableOfUnit[unit] == nil { tableOfUnit[unit] = tables.count }
                tables.append(table)
            }
            cursor.seek(to: end)
        }
    }

    /// Whether any index could be read.
    var isEmpty: Bool { tables.isEmpty }

    /// The header of the index whose body starts at `start`; nil when its parts do not fit in it or its version
    /// is not 5.
    private static func readTable(_ start: DWARFCursor, end: Int, offsetSize: Int) -> Table? {
        var cursor = start
        let version = cursor.u16()
        cursor.skip(2)  // padding
        let unitCount = Int(cursor.u32())
        let localTypeUnits = Int(cursor.u32())
        let foreignTypeUnits = Int(cursor.u32())
        let bucketCount = Int(cursor.u32())
        let nameCount = Int(cursor.u32())
        let abbreviationsSize = Int(cursor.u32())
        let augmentationSize = Int(cursor.u32())
        cursor.skip(augmentationSize)
        guard version == 5, !cursor.failed else { return nil }
        // Each part's place, from counts read from the file: at most 2^32 entries of 8 bytes, so no sum overflows.
        let unitList = cursor.offset
        let buckets = unitList + (unitCount + localTypeUnits) * offsetSize + foreignTypeUnits * 8
        let hashes = buckets + bucketCount * 4
        let stringOffsets = hashes + (bucketCount > 0 ? nameCount * 4 : 0)
        let entryOffsets = stringOffsets + nameCount * offsetSize
        let abbreviations = entryOffsets + nameCount * offsetSize
        let entryPool = abbreviations + abbreviationsSize
        guard entryPool <= end else { return nil }
        return Table(
            offsetSize: offsetSize, unitList: unitList, unitCount: unitCount, bucketCount: bucketCount,
            nameCount: nameCount, buckets: buckets, hashes: hashes, stringOffsets: stringOffsets,
            entryOffsets: entryOffsets, abbreviations: abbreviations, entryPool: entryPool, end: end)
    }

    /// The `.debug_info` offsets of the units `table` indexes; nil when one cannot be an offset.
    private func unitOffsets(_ table: Table) -> [Int]? {
        var units: [Int] = []
        units.reserveCapacity(table.unitCount)
        for number in 0..<table.unitCount {
            guard let unit = offsetOfUnit(number, in: table) else { return nil }
            units.append(unit)
        }
        return units
    }

    /// Unit number `number` (from 0) of `table`: its offset in `.debug_info`.
    private func offsetOfUnit(_ number: Int, in table: Table) -> Int? {
        guard number >= 0, number < table.unitCount else { return nil }
        var cursor = DWARFCursor(section, at: table.unitList + number * table.offsetSize)
        let offset = cursor.unsigned(size: table.offsetSize)
        return cursor.failed ? nil : Int(exactly: offset)
    }

    /// The tag of abbreviation `code` of `table`, and where its attribute list starts; nil when the list does not
    /// declare it or cannot be read up to it. An index declares a handful, so they are searched, not kept.
    private func abbreviation(_ code: UInt64, in table: Table) -> (tag: UInt64, attributes: Int)? {
        var cursor = DWARFCursor(section, at: table.abbreviations)
        while !cursor.failed && cursor.offset < table.entryPool {
            let declared = cursor.uleb()
            guard declared != 0 else { return nil }
            let tag = cursor.uleb()
            if declared == code { return cursor.failed ? nil : (tag, cursor.offset) }
            while !cursor.failed && cursor.offset < table.entryPool {
                let index = cursor.uleb()
                let form = cursor.uleb()
                if index == 0 && form == 0 { break }
            }
        }
        return nil
    }

    /// The `.debug_info` offsets of the DIEs with tag `tag` that the unit at `unitOffset` gives the name `name`
    /// (a subprogram is indexed under its name and its linkage name); empty when no index covers the unit or it
    /// has no such DIE.
    func dies(named name: String, tag: UInt64, inUnitAt unitOffset: Int) -> [UInt64] {
        guard let which = tableOfUnit[unitOffset] else { return [] }
        let table = tables[which]
        // An index without a hash table is a list to search from end to end: LLVM always writes one.
        guard table.bucketCount > 0, let hash = Self.hash(name) else { return [] }
        let bucket = Int(hash % UInt32(table.bucketCount))
        var cursor = DWARFCursor(section, at: table.buckets + bucket * 4)
        var index = Int(cursor.u32())  // the bucket's first name, numbered from 1; 0: none
        guard !cursor.failed, index > 0 else { return [] }
        var found: [UInt64] = []
        // The names of a bucket follow one another, as long as their hashes fall in it.
        while index <= table.nameCount {
            cursor.seek(to: table.hashes + (index - 1) * 4)
            let nameHash = cursor.u32()
            guard !cursor.failed, Int(nameHash % UInt32(table.bucketCount)) == bucket else { break }
            if nameHash == hash && spells(name, table, index) {
                found += entries(table, index, tag: tag, unitOffset: unitOffset)
            }
            index += 1
        }
        return found
    }

    /// The index's hash of a name: DJB's, over the name with its letters folded to lower case. Nil for a name
    /// outside ASCII, which Unicode's case folding would be needed for (mangled names are ASCII).
    static func hash(_ name: String) -> UInt32? {
        var hash: UInt32 = 5381
        for byte in name.utf8 {
            guard byte < 0x80 else { return nil }
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
            hash = hash &* 33 &+ UInt32(folded)
        }
        return hash
    }

    /// Whether name number `index` (from 1) of `table` is `name`, byte for byte.
    private func spells(_ name: String, _ table: Table, _ index: Int) -> Bool {
        var cursor = DWARFCursor(section, at: table.stringOffsets + (index - 1) * table.offsetSize)
        let offset = cursor.unsigned(size: table.offsetSize)
        guard !cursor.failed, let offset = Int(exactly: offset), let length = strings.stringLength(at: offset) else {
            return false
        }
        var name = name
        return name.withUTF8 { bytes in
            bytes.count == length && (length == 0 || memcmp(bytes.baseAddress!, strings.base + offset, length) == 0)
        }
    }

    /// The DIEs of name number `index` (from 1) of `table` with tag `tag` in the unit at `unitOffset`. Stops at the
    /// first entry it cannot read: an entry's size comes from its abbreviation alone.
    private func entries(_ table: Table, _ index: Int, tag: UInt64, unitOffset: Int) -> [UInt64] {
        var cursor = DWARFCursor(section, at: table.entryOffsets + (index - 1) * table.offsetSize)
        let relative = cursor.unsigned(size: table.offsetSize)
        guard !cursor.failed, let relative = Int(exactly: relative), relative < table.end - table.entryPool else {
            return []
        }
        cursor.seek(to: table.entryPool + relative)
        var found: [UInt64] = []
        while !cursor.failed && cursor.offset < table.end {
            let code = cursor.uleb()
            guard code != 0, let abbreviation = abbreviation(code, in: table) else { break }
            var unit: Int? = table.unitCount == 1 ? 0 : nil
            var die: UInt64?
            var isTypeUnit = false
            var attributes = DWARFCursor(section, at: abbreviation.attributes)
            while true {
                let index = attributes.uleb()
                let form = attributes.uleb()
                guard !attributes.failed, attributes.offset <= table.entryPool else { return found }
                if index == 0 && form == 0 { break }
                guard let value = Self.value(form: form, &cursor) else { return found }
                switch index {
                case 1: unit = Int(exactly: value)  // DW_IDX_compile_unit
                case 2: isTypeUnit = true  // DW_IDX_type_unit
                case 3: die = value  // DW_IDX_die_offset, from the unit's start
                default: break
                }
            }
            guard !cursor.failed, cursor.offset <= table.end else { break }
            if abbreviation.tag == tag, !isTypeUnit, let unit, offsetOfUnit(unit, in: table) == unitOffset, let die,
                die < UInt64(Int.max) - UInt64(unitOffset)
            {
                found.append(UInt64(unitOffset) + die)
            }
        }
        return found
    }

    /// An index attribute's value in `form`; nil for a form an index does not use, whose size is unknown.
    private static func value(form: UInt64, _ cursor: inout DWARFCursor) -> UInt64? {
        switch form {
        case 0x0b, 0x11, 0x0c: UInt64(cursor.u8())  // data1, ref1, flag
        case 0x05, 0x12: UInt64(cursor.u16())  // data2, ref2
        case 0x06, 0x13: UInt64(cursor.u32())  // data4, ref4
        case 0x07, 0x14: cursor.u64()  // data8, ref8
        case 0x0f, 0x15: cursor.uleb()  // udata, ref_udata
        case 0x0d: UInt64(bitPattern: cursor.sleb())  // sdata
        case 0x19: 0  // flag_present: no bytes
        default: nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
