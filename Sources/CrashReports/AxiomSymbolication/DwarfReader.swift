import CAxiomDwarf

/// The libdwarf side of a module: opens the file once, indexes its compile units by address range, and
/// builds a ``CompileUnitTable`` for a unit the first time an address falls in it. Used for the files that
/// ``NativeDWARFReader`` cannot read in place (compressed debug sections), and by tests as its reference.
///
/// Not thread-safe (libdwarf is not): it lives inside the ``Symbolicator``'s mutex.
final class DwarfReader: DebugInfoReader {
    struct Unit {
        var dieOffset: Dwarf_Off
        var version: UInt16
        var base: UInt64 = 0
        /// Swift puts concrete subprograms inside types and closures inside functions; C and C++ do not.
        var isSwift = false
        var table: CompileUnitTable?
        var failed = false
    }

    let path: String
    private let debug: Dwarf_Debug
    private(set) var units: [Unit] = []
    /// Which units cover an address; units whose DIE carries no range are indexed from their subprograms on the
    /// first miss.
    private var unitIndex = UnitRangeIndex()
    /// Names resolved per DIE offset: (DW_AT_name, linkage name).
    private var names = DIENameCache()

    /// libdwarf records every allocation in a search tree so dwarf_finish can free what callers forgot; that
    /// bookkeeping was about 40% of the time spent building tables. We free every DIE, attribute, error and
    /// list we get, so the tracking is switched off (a process-wide libdwarf flag), once, before any open.
    private static let allocationTrackingOff: Bool = {
        _ = axiom_libdwarf_set_de_alloc_flag(0)
        return true
    }()

    /// Opens the DWARF of `path` (a module or its separate debug file); nil when the file has none.
    init?(path: String) throws(SymbolicationError) {
        // libdwarf is opened on first use, not linked: a machine may not have it.
        guard axiom_libdwarf_available() != 0 else {
            throw .dwarf(path, "cannot open the DWARF", "libdwarf (libdwarf.so.1) could not be loaded")
        }
        precondition(Self.allocationTrackingOff)
        self.path = path
        var debug: Dwarf_Debug? = nil
        var error: Dwarf_Error? = nil
        // No true-path buffer: with one, libdwarf follows .gnu_debuglink on its own, without checking the
        // build-id. DebugInfoLocator has already chosen the file that holds the DWARF.
        let result = axiom_libdwarf_init_path(
            path, nil, 0, Dwarf_Unsigned(DW_DLC_READ), UInt32(DW_GROUPNUMBER_ANY), nil, nil, &debug, nil, 0, nil,
            &error)
        if result == DW_DLV_NO_ENTRY { return nil }
        guard result == DW_DLV_OK, let debug else {
            let text = Self.takeMessage(nil, error)
            throw .dwarf(path, "cannot open the DWARF", text)
        }
        self.debug = debug
        // A throw from here on runs deinit, which calls dwarf_finish. `path` is the file libdwarf opened: it no
        // longer follows .gnu_debuglink on its own.
        if let problem = try ELFImage(path: path).rangeListProblem() {
            throw .dwarf(path, "not handed to libdwarf, whose reader frees a bad range-list header twice", problem)
        }
        try indexUnits()
    }

    deinit {
        var error: Dwarf_Error? = nil
        if axiom_libdwarf_finish(debug, &error) == DW_DLV_ERROR { axiom_libdwarf_dealloc_error(nil, error) }
    }

    private static func takeMessage(_ debug: Dwarf_Debug?, _ error: Dwarf_Error?) -> String {
        guard let error else { return "unknown error" }
        let text = axiom_libdwarf_errmsg(error).map { String(cString: $0) } ?? "unknown error"
        axiom_libdwarf_dealloc_error(debug, error)
        return text
    }

    private func message(_ error: Dwarf_Error?) -> String { Self.takeMessage(debug, error) }

    /// Drops an error we choose to tolerate (a missing attribute in malformed input, …).
    private func discard(_ error: Dwarf_Error?) {
        if let error { axiom_libdwarf_dealloc_error(debug, error) }
    }

    // MARK: Compile unit index

    private func indexUnits() throws(SymbolicationError) {
        var error: Dwarf_Error? = nil
        while true {
            var headerLength: Dwarf_Unsigned = 0
            var version: Dwarf_Half = 0
            var abbrevOffset: Dwarf_Off = 0
            var addressSize: Dwarf_Half = 0
            var lengthSize: Dwarf_Half = 0
            var extensionSize: Dwarf_Half = 0
            var signature = Dwarf_Sig8()
            var typeOffset: Dwarf_Unsigned = 0
            var nextOffset: Dwarf_Unsigned = 0
            var unitType: Dwarf_Half = 0
            let result = axiom_libdwarf_next_cu_header_d(
                debug, 1, &headerLength, &version, &abbrevOffset, &addressSize, &lengthSize, &extensionSize,
                &signature, &typeOffset, &nextOffset, &unitType, &error)
            if result == DW_DLV_NO_ENTRY { break }
            if result == DW_DLV_ERROR {
                // Keep the units read so far: a damaged tail should not hide the good ones.
                let text = message(error)
                if units.isEmpty { throw .dwarf(path, "cannot read the compile unit headers", text) }
                break
            }
            var unitDie: Dwarf_Die? = nil
            guard axiom_libdwarf_siblingof_b(debug, nil, 1, &unitDie, &error) == DW_DLV_OK, let unitDie else {
                discard(error)
                error = nil
                continue
            }
            defer { axiom_libdwarf_dealloc_die(unitDie) }
            var dieOffset: Dwarf_Off = 0
            guard axiom_libdwarf_dieoffset(unitDie, &dieOffset, &error) == DW_DLV_OK else {
                discard(error)
                error = nil
                continue
            }
            let unitIndex = units.count
            let unitBase = lowPC(of: unitDie) ?? 0
            var language: Dwarf_Unsigned = 0
            if axiom_libdwarf_srclang(unitDie, &language, &error) == DW_DLV_ERROR {
                discard(error)
                error = nil
            }
            units.append(
                Unit(
                    dieOffset: dieOffset, version: version, base: unitBase,
                    isSwift: language == Dwarf_Unsigned(DW_LANG_Swift), table: nil))
            self.unitIndex.add(unit: unitIndex, ranges: pcRanges(of: unitDie, version: version, base: unitBase))
        }
        self.unitIndex.finish()
    }

    /// The units whose ranges contain `address`, best candidate first.
    func units(containing address: UInt64) -> [Int] {
        unitIndex.units(containing: address) { table(forUnit: $0) }
    }

    // MARK: Attributes

    private func lowPC(of die: Dwarf_Die) -> UInt64? {
        var address: Dwarf_Addr = 0
        var error: Dwarf_Error? = nil
        let result = axiom_libdwarf_lowpc(die, &address, &error)
        if result == DW_DLV_OK { return address }
        discard(error)
        return nil
    }

    private func hasAttribute(_ die: Dwarf_Die, _ attribute: Int32) -> Bool {
        var present: Dwarf_Bool = 0
        var error: Dwarf_Error? = nil
        if axiom_libdwarf_hasattr(die, Dwarf_Half(attribute), &present, &error) != DW_DLV_OK {
            discard(error)
            return false
        }
        return present != 0
    }

    /// Runs `read` on one attribute of a DIE, releasing the attribute afterwards; nil when the DIE lacks it.
    private func withAttribute<T>(
        _ die: Dwarf_Die, _ attribute: Int32, _ read: (Dwarf_Attribute, inout Dwarf_Error?) -> T?
    ) -> T? {
        var attr: Dwarf_Attribute? = nil
        var error: Dwarf_Error? = nil
        guard axiom_libdwarf_attr(die, Dwarf_Half(attribute), &attr, &error) == DW_DLV_OK, let attr else {
            discard(error)
            return nil
        }
        defer { axiom_libdwarf_dealloc_attribute(attr) }
        return read(attr, &error)
    }

    private func unsignedAttribute(_ die: Dwarf_Die, _ attribute: Int32) -> UInt64? {
        withAttribute(die, attribute) { attr, error in
            var value: Dwarf_Unsigned = 0
            if axiom_libdwarf_formudata(attr, &value, &error) == DW_DLV_OK { return value }
            discard(error)
            error = nil
            // libdwarf 20210528's dwarf_formudata rejects DW_FORM_implicit_const (GCC uses it for call_file,
            // call_line, …); dwarf_formsdata reads it.
            var signed: Dwarf_Signed = 0
            if axiom_libdwarf_formsdata(attr, &signed, &error) == DW_DLV_OK, signed >= 0 { return UInt64(signed) }
            discard(error)
            return nil
        }
    }

    private func stringAttribute(_ die: Dwarf_Die, _ attribute: Int32) -> String? {
        withAttribute(die, attribute) { attr, error in
            var string: UnsafeMutablePointer<CChar>? = nil
            // The string points into the string section: it is not ours to free.
            guard axiom_libdwarf_formstring(attr, &string, &error) == DW_DLV_OK, let string else {
                discard(error)
                return nil
            }
            return String(cString: string)
        }
    }

    /// The global (section) offset of the DIE a reference attribute points to.
    private func referenceAttribute(_ die: Dwarf_Die, _ attribute: Int32) -> Dwarf_Off? {
        withAttribute(die, attribute) { attr, error in
            var offset: Dwarf_Off = 0
            if axiom_libdwarf_global_formref(attr, &offset, &error) == DW_DLV_OK { return offset }
            discard(error)
            return nil
        }
    }

    /// The address ranges of a DIE, from DW_AT_low_pc/DW_AT_high_pc (address or offset form) or DW_AT_ranges
    /// (DWARF 4 `.debug_ranges`, DWARF 5 `.debug_rnglists`). Empty ranges are dropped.
    private func pcRanges(of die: Dwarf_Die, version: UInt16, base: UInt64) -> [(low: UInt64, high: UInt64)] {
        var error: Dwarf_Error? = nil
        if hasAttribute(die, DW_AT_ranges) {
            var attr: Dwarf_Attribute? = nil
            guard axiom_libdwarf_attr(die, Dwarf_Half(DW_AT_ranges), &attr, &error) == DW_DLV_OK, let attr else {
                discard(error)
                return []
            }
            defer { axiom_libdwarf_dealloc_attribute(attr) }
            var form: Dwarf_Half = 0
            guard axiom_libdwarf_whatform(attr, &form, &error) == DW_DLV_OK else {
                discard(error)
                return []
            }
            var value: Dwarf_Unsigned = 0
            let valueResult =
                form == DW_FORM_rnglistx
                ? axiom_libdwarf_formudata(attr, &value, &error) : axiom_libdwarf_global_formref(attr, &value, &error)
            guard valueResult == DW_DLV_OK else {
                discard(error)
                return []
            }
            if version >= 5 || form == DW_FORM_rnglistx {
                return rangeList(attr, form: form, value: value)
            }
            return debugRanges(die, offset: value, base: base)
        }
        guard let low = lowPC(of: die) else { return [] }
        // libdwarf 20210528's dwarf_highpc_b loses an error it makes for a DW_AT_high_pc of a form it cannot read
        // (a leak per DIE, found by fuzzing): such a DIE is not handed to it, and has no range anyway.
        let highForm: Dwarf_Half? = withAttribute(die, DW_AT_high_pc) { attr, error in
            var form: Dwarf_Half = 0
            guard axiom_libdwarf_whatform(attr, &form, &error) == DW_DLV_OK else {
                discard(error)
                error = nil
                return nil
            }
            return form
        }
        guard let highForm, Self.highPCForms.contains(Int32(highForm)) else { return [] }
        var high: Dwarf_Addr = 0
        var form: Dwarf_Half = 0
        var formClass = DW_FORM_CLASS_UNKNOWN
        let highResult = axiom_libdwarf_highpc_b(die, &high, &form, &formClass, &error)
        // libdwarf 20210528 can answer DW_DLV_OK and still leave an error it made on the way (found by fuzzing):
        // it is ours to free either way.
        discard(error)
        guard highResult == DW_DLV_OK else { return [] }
        if formClass == DW_FORM_CLASS_CONSTANT { high = low &+ high }
        return high > low ? [(low, high)] : []
    }

    /// The forms of DW_AT_high_pc that dwarf_highpc_b reads: an address, or an offset from DW_AT_low_pc.
    private static let highPCForms: Set<Int32> = [
        DW_FORM_addr, DW_FORM_addrx, DW_FORM_GNU_addr_index, DW_FORM_data1, DW_FORM_data2, DW_FORM_data4,
        DW_FORM_data8, DW_FORM_udata, DW_FORM_sdata,
    ]

    private func rangeList(_ attr: Dwarf_Attribute, form: Dwarf_Half, value: UInt64) -> [(low: UInt64, high: UInt64)] {
        var head: Dwarf_Rnglists_Head? = nil
        var count: Dwarf_Unsigned = 0
        var globalOffset: Dwarf_Unsigned = 0
        var error: Dwarf_Error? = nil
        guard
            axiom_libdwarf_rnglists_get_rle_head(attr, form, value, &head, &count, &globalOffset, &error) == DW_DLV_OK,
            let head
        else {
            discard(error)
            return []
        }
        defer { axiom_libdwarf_dealloc_rnglists_head(head) }
        var result: [(low: UInt64, high: UInt64)] = []
        for index in 0..<count {
            var length: UInt32 = 0
            var code: UInt32 = 0
            var raw1: Dwarf_Unsigned = 0
            var raw2: Dwarf_Unsigned = 0
            var unavailable: Dwarf_Bool = 0
            var low: Dwarf_Unsigned = 0
            var high: Dwarf_Unsigned = 0
            guard
                axiom_libdwarf_get_rnglists_entry_fields_a(
                    head, index, &length, &code, &raw1, &raw2, &unavailable, &low, &high, &error) == DW_DLV_OK
            else {
                discard(error)
                break
            }
            if code == DW_RLE_end_of_list { break }
            if code == DW_RLE_base_address || code == DW_RLE_base_addressx || unavailable != 0 { continue }
            if high > low { result.append((low, high)) }
        }
        return result
    }

    private func debugRanges(_ die: Dwarf_Die, offset: UInt64, base: UInt64) -> [(low: UInt64, high: UInt64)] {
        var realOffset: Dwarf_Off = 0
        var buffer: UnsafeMutablePointer<Dwarf_Ranges>? = nil
        var count: Dwarf_Signed = 0
        var byteCount: Dwarf_Unsigned = 0
        var error: Dwarf_Error? = nil
        guard
            axiom_libdwarf_get_ranges_b(debug, offset, die, &realOffset, &buffer, &count, &byteCount, &error)
                == DW_DLV_OK,
            let buffer
        else {
            discard(error)
            return []
        }
        defer { axiom_libdwarf_ranges_dealloc(debug, buffer, count) }
        var base = base
        var result: [(low: UInt64, high: UInt64)] = []
        // Counts from libdwarf are signed: a negative one is no entries, not a trap.
        for index in 0..<max(0, Int(count)) {
            let entry = buffer[index]
            switch entry.dwr_type {
            case DW_RANGES_ENTRY:
                let low = base &+ entry.dwr_addr1
                let high = base &+ entry.dwr_addr2
                if high > low { result.append((low, high)) }
            case DW_RANGES_ADDRESS_SELECTION:
                base = entry.dwr_addr2
            default:
                break
            }
        }
        return result
    }

    // MARK: Compile unit tables

    /// The table of `unit`, built on first use; nil when the unit cannot be read.
    func table(forUnit unit: Int) -> CompileUnitTable? {
        if let table = units[unit].table { return table }
        if units[unit].failed { return nil }
        let table = buildTable(units[unit])
        if let table { units[unit].table = table } else { units[unit].failed = true }
        return table
    }

    private func buildTable(_ unit: Unit) -> CompileUnitTable? {
        var error: Dwarf_Error? = nil
        var unitDie: Dwarf_Die? = nil
        guard axiom_libdwarf_offdie_b(debug, unit.dieOffset, 1, &unitDie, &error) == DW_DLV_OK, let unitDie else {
            discard(error)
            return nil
        }
        defer { axiom_libdwarf_dealloc_die(unitDie) }
        var table = CompileUnitTable()
        readLines(unitDie, into: &table)
        walkChildren(of: unitDie, mode: .subprograms, parent: nil, unit: unit, into: &table, depth: 0)
        table.finish()
        return table
    }

    /// The chain of scopes covering `address` in `unit`: the concrete subprogram first, the innermost inlined
    /// subroutine last. Reads the subprogram's inlined subroutines the first time it is hit.
    func scopeChain(unit: Int, address: UInt64) -> [Int32] {
        guard var table = table(forUnit: unit), let top = table.topLevelScope(containing: address) else { return [] }
        if !table.scopes[Int(top)].childrenLoaded {
            // Move the table out while it grows so its arrays are not copied.
            units[unit].table = nil
            table.scopes[Int(top)].childrenLoaded = true
            var error: Dwarf_Error? = nil
            var die: Dwarf_Die? = nil
            if axiom_libdwarf_offdie_b(debug, table.scopes[Int(top)].dieOffset, 1, &die, &error) == DW_DLV_OK, let die {
                walkChildren(
                    of: die, mode: .inlinedSubroutines, parent: top, unit: units[unit], into: &table, depth: 1)
                axiom_libdwarf_dealloc_die(die)
            } else {
                discard(error)
            }
            units[unit].table = table
        }
        return table.chain(from: top, containing: address)
    }

    private func readLines(_ unitDie: Dwarf_Die, into table: inout CompileUnitTable) {
        var error: Dwarf_Error? = nil
        var lineVersion: Dwarf_Unsigned = 0
        var tableCount: Dwarf_Small = 0
        var context: Dwarf_Line_Context? = nil
        guard axiom_libdwarf_srclines_b(unitDie, &lineVersion, &tableCount, &context, &error) == DW_DLV_OK, let context
        else {
            discard(error)
            return
        }
        defer { axiom_libdwarf_srclines_dealloc_b(context) }
        readFiles(context, into: &table)
        error = nil

        var lines: UnsafeMutablePointer<Dwarf_Line?>? = nil
        var lineCount: Dwarf_Signed = 0
        guard axiom_libdwarf_srclines_from_linecontext(context, &lines, &lineCount, &error) == DW_DLV_OK, let lines
        else {
            discard(error)
            return
        }
        let rowCount = max(0, Int(lineCount))
        table.rows.reserveCapacity(rowCount)
        for index in 0..<rowCount {
            guard let line = lines[index] else { continue }
            var address: Dwarf_Addr = 0
            var number: Dwarf_Unsigned = 0
            var column: Dwarf_Unsigned = 0
            var file: Dwarf_Unsigned = 0
            var isEnd: Dwarf_Bool = 0
            guard axiom_libdwarf_lineaddr(line, &address, &error) == DW_DLV_OK else {
                discard(error)
                error = nil
                continue
            }
            if axiom_libdwarf_lineno(line, &number, &error) != DW_DLV_OK { discard(error); error = nil }
            if axiom_libdwarf_lineoff_b(line, &column, &error) != DW_DLV_OK { discard(error); error = nil }
            if axiom_libdwarf_line_srcfileno(line, &file, &error) != DW_DLV_OK { discard(error); error = nil }
            // libdwarf 20210528 starts the DWARF 5 file register at 0 instead of 1 (DWARF 5 §6.2.2), so rows
            // before the first DW_LNS_set_file report file 0. Producers that use file 0 make it the same file as 1
            // (clang) or never set it explicitly (GCC), so reading 0 as 1 matches the line program.
            if lineVersion >= 5 && file == 0 && table.files.count > 1 { file = 1 }
            if axiom_libdwarf_lineendsequence(line, &isEnd, &error) != DW_DLV_OK { discard(error); error = nil }
            // libdwarf 20210528 reports every row that has epilogue_begin set as end-of-sequence too (Swift
            // emits such rows, often in the middle of a sequence). A real end_sequence row never carries
            // epilogue_begin in practice, so a row with both is a normal row.
            if isEnd != 0 {
                var prologueEnd: Dwarf_Bool = 0
                var epilogueBegin: Dwarf_Bool = 0
                var isa: Dwarf_Unsigned = 0
                var discriminator: Dwarf_Unsigned = 0
                if axiom_libdwarf_prologue_end_etc(line, &prologueEnd, &epilogueBegin, &isa, &discriminator, &error)
                    != DW_DLV_OK
                {
                    discard(error)
                    error = nil
                } else if epilogueBegin != 0 {
                    isEnd = 0
                }
            }
            table.rows.append(
                CompileUnitTable.LineRow(
                    address: address, file: UInt32(truncatingIfNeeded: file), line: UInt32(truncatingIfNeeded: number),
                    column: UInt32(truncatingIfNeeded: column), isEndSequence: isEnd != 0))
        }
    }

    /// The line table's file names as full paths, by file number. Built from the raw file and directory
    /// tables with the rules llvm-symbolizer uses (dwarf_srcfiles joins the compile directory even to DWARF 5
    /// directory 0, which already is the compile directory, giving "./dir/./dir/file" for relative builds).
    private func readFiles(_ context: Dwarf_Line_Context, into table: inout CompileUnitTable) {
        var error: Dwarf_Error? = nil
        var version: Dwarf_Unsigned = 0
        var tableCount: Dwarf_Small = 0
        if axiom_libdwarf_srclines_version(context, &version, &tableCount, &error) != DW_DLV_OK {
            discard(error)
            error = nil
        }
        var compDirPointer: UnsafePointer<CChar>? = nil
        if axiom_libdwarf_srclines_comp_dir(context, &compDirPointer, &error) != DW_DLV_OK {
            discard(error)
            error = nil
        }
        let compDir = compDirPointer.map { String(cString: $0) } ?? ""
        var directoryCount: Dwarf_Signed = 0
        if axiom_libdwarf_srclines_include_dir_count(context, &directoryCount, &error) != DW_DLV_OK {
            discard(error)
            error = nil
        }
        // libdwarf indexes include directories the way the table numbers them: from 0 in DWARF 5 (0 is the
        // compile directory), from 1 before (0 meant the compile directory and is not in the table).
        var directories: [String] = version >= 5 ? [] : [""]
        let firstDirectory: Dwarf_Signed = version >= 5 ? 0 : 1
        // The counts and indexes below describe the file's tables: bounded before they size a loop.
        if directoryCount > 0 && directoryCount <= Self.maxTableEntries {
            for index in firstDirectory..<(firstDirectory + directoryCount) {
                var name: UnsafePointer<CChar>? = nil
                if axiom_libdwarf_srclines_include_dir_data(context, index, &name, &error) == DW_DLV_OK {
                    directories.append(name.map { String(cString: $0) } ?? "")
                } else {
                    discard(error)
                    error = nil
                    directories.append("")
                }
            }
        }
        var base: Dwarf_Signed = 0
        var count: Dwarf_Signed = 0
        var end: Dwarf_Signed = 0
        guard axiom_libdwarf_srclines_files_indexes(context, &base, &count, &end, &error) == DW_DLV_OK else {
            discard(error)
            return
        }
        guard base >= 0, base <= Self.maxTableEntries, end > base, end - base <= Self.maxTableEntries else { return }
        table.fileNumberBase = Int(base)
        table.files.reserveCapacity(Int(end - base))
        for index in base..<end {
            var name: UnsafePointer<CChar>? = nil
            var directoryIndex: Dwarf_Unsigned = 0
            var modificationTime: Dwarf_Unsigned = 0
            var length: Dwarf_Unsigned = 0
            var md5: UnsafeMutablePointer<Dwarf_Form_Data16>? = nil
            guard
                axiom_libdwarf_srclines_files_data_b(
                    context, index, &name, &directoryIndex, &modificationTime, &length, &md5, &error) == DW_DLV_OK,
                let name
            else {
                discard(error)
                error = nil
                table.files.append(nil)
                continue
            }
            let fileName = String(cString: name)
            let directory = directoryIndex < directories.count ? directories[Int(directoryIndex)] : ""
            table.files.append(
                Self.joinPath(
                    compDir: compDir, directory: directory, file: fileName,
                    useCompDir: version < 5 || directoryIndex != 0))
        }
    }

    /// More directories or files than any line table has: a corrupt count.
    static let maxTableEntries: Dwarf_Signed = 1 << 24

    static func joinPath(compDir: String, directory: String, file: String, useCompDir: Bool) -> String {
        if file.hasPrefix("/") { return file }
        var result = ""
        func append(_ component: String) {
            guard !component.isEmpty else { return }
            if result.isEmpty || result.hasSuffix("/") {
                result += component
            } else {
                result += "/" + component
            }
        }
        if useCompDir && !directory.hasPrefix("/") { append(compDir) }
        append(directory)
        append(file)
        return result
    }

    /// What a DIE walk collects.
    enum WalkMode {
        /// Subprograms with code, wherever they are: at unit level, in namespaces, in the type they belong to
        /// (Swift methods), nested in other subprograms (Swift closures). Inlined subroutines are skipped.
        case subprograms
        /// The inlined subroutines of one subprogram, nested as they are (through lexical blocks).
        case inlinedSubroutines
    }

    /// Walks the children of `die`. Recursion is bounded by the DIE nesting depth, itself capped so a corrupt
    /// file cannot blow the stack.
    private func walkChildren(
        of die: Dwarf_Die, mode: WalkMode, parent: Int32?, unit: Unit, into table: inout CompileUnitTable,
        depth: Int
    ) {
        guard depth < 256 else { return }
        var error: Dwarf_Error? = nil
        var child: Dwarf_Die? = nil
        guard axiom_libdwarf_child(die, &child, &error) == DW_DLV_OK, var current = child else {
            discard(error)
            return
        }
        while true {
            visit(current, mode: mode, parent: parent, unit: unit, into: &table, depth: depth)
            var sibling: Dwarf_Die? = nil
            let result = axiom_libdwarf_siblingof_b(debug, current, 1, &sibling, &error)
            axiom_libdwarf_dealloc_die(current)
            guard result == DW_DLV_OK, let sibling else {
                discard(error)
                return
            }
            current = sibling
        }
    }

    private func visit(
        _ die: Dwarf_Die, mode: WalkMode, parent: Int32?, unit: Unit, into table: inout CompileUnitTable,
        depth: Int
    ) {
        var tag: Dwarf_Half = 0
        var error: Dwarf_Error? = nil
        guard axiom_libdwarf_tag(die, &tag, &error) == DW_DLV_OK else {
            discard(error)
            return
        }
        switch (Int32(tag), mode) {
        case (DW_TAG_subprogram, .subprograms):
            let ranges = pcRanges(of: die, version: unit.version, base: unit.base)
            if !ranges.isEmpty, let offset = dieOffset(die) {
                // Its inlined subroutines are read on the first lookup that lands in it.
                var scope = CompileUnitTable.Scope(
                    dieOffset: offset, entryAddress: lowPC(of: die) ?? ranges.map(\.low).min() ?? 0, rangeStart: 0,
                    rangeCount: 0, isInlined: false)
                scope.childrenLoaded = false
                _ = table.addScope(scope, ranges: ranges, parent: nil)
            }
            // Swift nests closures' subprograms inside their function's, and does so also when the function
            // has no code of its own: a function inlined everywhere is an abstract subprogram (DW_AT_inline)
            // whose closures still have concrete code, found only by looking inside it.
            if unit.isSwift {
                walkChildren(of: die, mode: mode, parent: nil, unit: unit, into: &table, depth: depth + 1)
            }
        case (DW_TAG_inlined_subroutine, .inlinedSubroutines):
            guard let parent else { return }
            let ranges = pcRanges(of: die, version: unit.version, base: unit.base)
            guard !ranges.isEmpty, let offset = dieOffset(die) else { return }
            var scope = CompileUnitTable.Scope(
                dieOffset: offset, entryAddress: lowPC(of: die) ?? ranges.map(\.low).min() ?? 0, rangeStart: 0,
                rangeCount: 0, isInlined: true)
            scope.callFile = UInt32(truncatingIfNeeded: unsignedAttribute(die, DW_AT_call_file) ?? 0)
            scope.callLine = UInt32(truncatingIfNeeded: unsignedAttribute(die, DW_AT_call_line) ?? 0)
            scope.callColumn = UInt32(truncatingIfNeeded: unsignedAttribute(die, DW_AT_call_column) ?? 0)
            guard let index = table.addScope(scope, ranges: ranges, parent: parent) else { return }
            walkChildren(of: die, mode: mode, parent: index, unit: unit, into: &table, depth: depth + 1)
        case (DW_TAG_lexical_block, _), (DW_TAG_try_block, _), (DW_TAG_catch_block, _):
            walkChildren(of: die, mode: mode, parent: parent, unit: unit, into: &table, depth: depth + 1)
        // Concrete code also lives in namespaces (C++) and, for Swift only, inside the type it belongs to (a
        // method's concrete subprogram sits in its struct, class or enum DIE). C++ definitions sit outside the
        // class (DW_AT_specification points in), so C and C++ type subtrees are skipped.
        case (DW_TAG_namespace, .subprograms):
            walkChildren(of: die, mode: mode, parent: parent, unit: unit, into: &table, depth: depth + 1)
        case (DW_TAG_module, .subprograms):
            // Swift puts most of a unit's concrete subprograms in DW_TAG_module entries, and not only in its
            // own module's: code the unit emits on behalf of an imported module (witness thunks such as
            // `==` for an Equatable conformance, @_alwaysEmitIntoClient functions such as
            // `_finalizeUninitializedArray`, C function thunks) sits in that module's entry. Nor is the own
            // module's entry always the first: entries appear in order of first use, so a unit can name
            // `Swift` first. Every module entry is walked; in imported ones the walk only reads tags.
            guard unit.isSwift else { return }
            walkChildren(of: die, mode: mode, parent: parent, unit: unit, into: &table, depth: depth + 1)
        case (DW_TAG_class_type, .subprograms), (DW_TAG_structure_type, .subprograms),
            (DW_TAG_union_type, .subprograms), (DW_TAG_enumeration_type, .subprograms):
            if unit.isSwift {
                walkChildren(of: die, mode: mode, parent: parent, unit: unit, into: &table, depth: depth + 1)
            }
        default:
            return
        }
    }

    private func dieOffset(_ die: Dwarf_Die) -> Dwarf_Off? {
        var offset: Dwarf_Off = 0
        var error: Dwarf_Error? = nil
        if axiom_libdwarf_dieoffset(die, &offset, &error) == DW_DLV_OK { return offset }
        discard(error)
        return nil
    }

    // MARK: Names

    /// DW_AT_name and the linkage name of the DIE at `offset`, following DW_AT_abstract_origin and
    /// DW_AT_specification for what the DIE itself lacks. Cached per offset.
    func names(ofDieAt offset: Dwarf_Off) -> (name: String?, linkageName: String?) {
        names.names(ofDieAt: offset) { current, name, linkageName in
            var error: Dwarf_Error? = nil
            var die: Dwarf_Die? = nil
            guard axiom_libdwarf_offdie_b(debug, current, 1, &die, &error) == DW_DLV_OK, let die else {
                discard(error)
                return nil
            }
            if linkageName == nil {
                linkageName = stringAttribute(die, DW_AT_linkage_name) ?? stringAttribute(die, DW_AT_MIPS_linkage_name)
            }
            if name == nil { name = stringAttribute(die, DW_AT_name) }
            let next = referenceAttribute(die, DW_AT_abstract_origin) ?? referenceAttribute(die, DW_AT_specification)
            axiom_libdwarf_dealloc_die(die)
            return next
        }
    }
}
