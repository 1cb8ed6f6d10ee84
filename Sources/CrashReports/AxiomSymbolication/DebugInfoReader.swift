/// What ``SymbolicatedModule`` asks of a module's DWARF, answered in place (``NativeDWARFReader``) or by libdwarf
/// (``DwarfReader``). Neither is thread-safe: both live inside the ``Symbolicator``'s mutex.
protocol DebugInfoReader: AnyObject {
    /// The compile units whose address ranges contain `address`, best candidate first.
    func units(containing address: UInt64) -> [Int]
    /// A unit's line table and function scopes, built on first use; nil when the unit cannot be read.
    func table(forUnit unit: Int) -> CompileUnitTable?
    /// The scopes covering `address` in `unit`: the concrete function first, the innermost inlined call last.
    func scopeChain(unit: Int, address: UInt64) -> [Int32]
    /// DW_AT_name and the linkage name of the DIE at a `.debug_info` offset, through its abstract origin or
    /// specification for what it lacks.
    func names(ofDieAt offset: UInt64) -> (name: String?, linkageName: String?)
}

/// Which compile units cover an address, for both DWARF readers: the ranges their unit DIEs give, sorted by start,
/// and the units whose DIE gives none (producers that omit it), indexed from their functions the first time an
/// address falls in no known range.
struct UnitRangeIndex {
    private struct Entry {
        var low: UInt64
        var high: UInt64
        var unit: Int
    }

    private var entries: [Entry] = []
    private var unindexed: [Int] = []

    /// Adds the ranges a unit's DIE gives; a unit with none is indexed later from its functions, unless its DIE
    /// has no children (`mayHoldFunctions` false), so no function either: the skeleton units a Swift binary has
    /// for each C module it imports (over a thousand in a 13 MB one), which nothing would be found in.
    mutating func add<Ranges: Sequence>(
        unit: Int, ranges: Ranges, mayHoldFunctions: Bool = true
    ) where Ranges.Element == (low: UInt64, high: UInt64) {
        var any = false
        for range in ranges {
            entries.append(Entry(low: range.low, high: range.high, unit: unit))
            any = true
        }
        if !any && mayHoldFunctions { unindexed.append(unit) }
    }

    /// Sorts the ranges: call once every unit is added.
    mutating func finish() { entries.sort { $0.low < $1.low } }

    /// The units whose ranges contain `address`, best candidate first. `table` reads a unit's functions, for the
    /// units without ranges of their own.
    mutating func units(containing address: UInt64, table: (Int) -> CompileUnitTable?) -> [Int] {
        var result = candidates(address)
        if result.isEmpty && !unindexed.isEmpty {
            let pending = unindexed
            unindexed = []
            for unit in pending {
                guard let units = table(unit) else { continue }
                for range in units.topLevel { entries.append(Entry(low: range.low, high: range.high, unit: unit)) }
            }
            finish()
            result = candidates(address)
        }
        return result
    }

    /// The units whose DIE gives no ranges, when one of `addresses` falls in no known range: those whose tables
    /// ``units(containing:table:)`` reads first, one after another, to index them.
    func unindexedUnits(neededFor addresses: [UInt64]) -> [Int] {
        guard !unindexed.isEmpty, addresses.contains(where: { candidates($0).isEmpty }) else { return [] }
        return unindexed
    }

    private func candidates(_ address: UInt64) -> [Int] {
        var result: [Int] = []
        var index = entries.countStarting(atOrBefore: address, \.low) - 1
        var looked = 0
        while index >= 0 && looked < 64 {
            let entry = entries[index]
            if address < entry.high && !result.contains(entry.unit) { result.append(entry.unit) }
            index -= 1
            looked += 1
        }
        return result
    }
}

/// The names of DIEs, for both DWARF readers: DW_AT_name and the linkage name of each DIE asked for, found through
/// its abstract origin or specification for what it lacks, and kept per `.debug_info` offset.
struct DIENameCache {
    private var kept: [UInt64: (name: String?, linkageName: String?)] = [:]

    /// DW_AT_name and the linkage name of the DIE at `offset`, following DW_AT_abstract_origin and
    /// DW_AT_specification (eight hops at the most) for what the DIE itself lacks; looked up once per offset.
    /// `read` reads the DIE at an offset: it fills in whichever of the two names is still nil, and gives the offset
    /// its origin or specification points at, nil when it points at none or the DIE cannot be read.
    mutating func names(
        ofDieAt offset: UInt64, read: (UInt64, inout String?, inout String?) -> UInt64?
    ) -> (name: String?, linkageName: String?) {
        if let cached = kept[offset] { return cached }
        var name: String? = nil
        var linkageName: String? = nil
        var next: UInt64? = offset
        var hops = 0
        while let current = next, hops < 8, name == nil || linkageName == nil {
            hops += 1
            next = read(current, &name, &linkageName)
        }
        let result = (name, linkageName)
        kept[offset] = result
        return result
    }

    /// Whether the names of the DIE at `offset` are kept.
    func contains(_ offset: UInt64) -> Bool { kept[offset] != nil }

    /// Keeps names found elsewhere (a job that read them on another thread), unless some are kept already.
    mutating func keep(offset: UInt64, name: String?, linkageName: String?) {
        if kept[offset] == nil { kept[offset] = (name, linkageName) }
    }
}
