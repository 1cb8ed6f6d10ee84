/// What one compile unit answers once built: its line table and its function scopes (concrete
/// subprograms with their inlined subroutines nested inside), both indexed for binary search.
///
/// ```
/// address ──▶ topLevel (sorted subprogram ranges) ──▶ scope ──▶ children… (innermost inlined scope)
///        └──▶ rows (sorted line table) ──▶ file:line:column of the innermost frame
/// ```
struct CompileUnitTable {
    struct LineRow {
        var address: UInt64
        var file: UInt32
        var line: UInt32
        var column: UInt32
        var isEndSequence: Bool
    }

    /// A subprogram (concrete) or an inlined subroutine.
    struct Scope {
        var dieOffset: UInt64
        var entryAddress: UInt64
        var rangeStart: Int32  // index into `ranges`
        var rangeCount: Int32
        var firstChild: Int32 = -1
        var lastChild: Int32 = -1
        var nextSibling: Int32 = -1
        var isInlined: Bool
        /// False for a subprogram whose inlined subroutines have not been read yet (they are read on the
        /// first lookup that lands in it: most functions of a unit are never looked at).
        var childrenLoaded = true
        var callFile: UInt32 = 0
        var callLine: UInt32 = 0
        var callColumn: UInt32 = 0
    }

    struct TopLevelRange {
        var low: UInt64
        var high: UInt64
        var scope: Int32
    }

    /// Source files by line-table file number (already shifted for DWARF < 5, where numbering starts at 1).
    var files: [String?] = []
    var fileNumberBase: Int = 1
    var rows: [LineRow] = []
    var scopes: [Scope] = []
    var ranges: [(low: UInt64, high: UInt64)] = []
    var topLevel: [TopLevelRange] = []
    /// True when only some of the unit's functions were read (those a batch's addresses fall in, found through the
    /// name index), with the line-table sequences their ranges meet: an address outside those functions needs the
    /// whole unit read.
    var isPartial = false

    func file(number: UInt32) -> String? {
        let index = Int(number) - fileNumberBase
        guard index >= 0, index < files.count else { return nil }
        return files[index]
    }

    /// Adds a scope and links it under `parent` (or nowhere for a subprogram). Nil, adding nothing, when the
    /// unit has more scopes or ranges than 32-bit indexes reach (only a corrupt file has).
    mutating func addScope(
        _ scope: Scope, ranges scopeRanges: [(low: UInt64, high: UInt64)], parent: Int32?
    ) -> Int32? {
        guard let rangeStart = Int32(exactly: ranges.count), let rangeCount = Int32(exactly: scopeRanges.count),
            Int32(exactly: ranges.count + scopeRanges.count) != nil, let index = Int32(exactly: scopes.count)
        else { return nil }
        var scope = scope
        scope.rangeStart = rangeStart
        scope.rangeCount = rangeCount
        ranges.append(contentsOf: scopeRanges)
        scopes.append(scope)
        if let parent {
            let parentIndex = Int(parent)
            if scopes[parentIndex].lastChild >= 0 {
                scopes[Int(scopes[parentIndex].lastChild)].nextSibling = index
            } else {
                scopes[parentIndex].firstChild = index
            }
            scopes[parentIndex].lastChild = index
        } else {
            for range in scopeRanges { topLevel.append(TopLevelRange(low: range.low, high: range.high, scope: index)) }
        }
        return index
    }

    mutating func finish() {
        topLevel.sort { $0.low < $1.low }
        // Rows are ordered by address, stably; at one address end-of-sequence rows come first, so that a sequence
        // starting where another ends wins. Rows already in that order (one sequence, or sequences emitted in
        // address order) are left as they are.
        if Self.isOrdered(rows) { return }
        // Each sequence's rows are in address order already: when the sequences do not overlap (the usual case,
        // code placed by the linker in another order than compiled), putting whole sequences in order of their
        // first address orders the rows with one copy instead of a sort.
        if rows.last?.isEndSequence == true {
            var sequences: [Range<Int>] = []
            var start = 0
            for index in rows.indices where rows[index].isEndSequence {
                sequences.append(start..<(index + 1))
                start = index + 1
            }
            sequences.sort { lhs, rhs in
                let (left, right) = (rows[lhs.lowerBound].address, rows[rhs.lowerBound].address)
                return left != right ? left < right : lhs.lowerBound < rhs.lowerBound
            }
            var joined: [LineRow] = []
            joined.reserveCapacity(rows.count)
            for sequence in sequences { joined.append(contentsOf: rows[sequence]) }
            if Self.isOrdered(joined) {
                rows = joined
                return
            }
        }
        // Sequences that overlap (code a linker discarded, left at address 0), rows out of order within one, or a
        // last sequence with no end: a stable sort.
        let indexed = rows.enumerated().sorted { lhs, rhs in
            if lhs.element.address != rhs.element.address { return lhs.element.address < rhs.element.address }
            if lhs.element.isEndSequence != rhs.element.isEndSequence { return lhs.element.isEndSequence }
            return lhs.offset < rhs.offset
        }
        rows = indexed.map(\.element)
    }

    /// Whether `rows` are in the order ``finish()`` gives them. Whole sequences, each closed by its end row, that
    /// pass differ from the stable sort at most in the order of end rows at one address (a sequence that is an end
    /// row alone), which a lookup reads alike: no line.
    private static func isOrdered(_ rows: [LineRow]) -> Bool {
        rows.indices.dropFirst().allSatisfy { index in
            let previous = rows[index - 1]
            let row = rows[index]
            return previous.address < row.address
                || (previous.address == row.address && (previous.isEndSequence || !row.isEndSequence))
        }
    }

    func contains(_ scope: Scope, _ address: UInt64) -> Bool {
        let start = Int(scope.rangeStart)
        for index in start..<(start + Int(scope.rangeCount)) {
            let range = ranges[index]
            if address >= range.low && address < range.high { return true }
        }
        return false
    }

    /// The subprogram whose ranges contain `address`, or nil.
    func topLevelScope(containing address: UInt64) -> Int32? {
        // Last top-level range starting at or before the address; overlapping subprograms are rare, so
        // look back a few entries when the nearest one does not contain it.
        var candidate = topLevel.countStarting(atOrBefore: address, \.low) - 1
        var looked = 0
        while candidate >= 0 && looked < 32 {
            let range = topLevel[candidate]
            if address < range.high { return range.scope }
            candidate -= 1
            looked += 1
        }
        return nil
    }

    /// The child of `scope` whose ranges contain `address`, or nil.
    func child(of scope: Int32, containing address: UInt64) -> Int32? {
        var child = scopes[Int(scope)].firstChild
        while child >= 0 {
            if contains(scopes[Int(child)], address) { return child }
            child = scopes[Int(child)].nextSibling
        }
        return nil
    }

    /// The scopes covering `address` below the subprogram `top`: `top` first, the innermost inlined subroutine last.
    func chain(from top: Int32, containing address: UInt64) -> [Int32] {
        var chain: [Int32] = [top]
        var current = top
        while let next = child(of: current, containing: address) {
            chain.append(next)
            current = next
        }
        return chain
    }

    /// The line-table row covering `address`, or nil when the address falls in no sequence.
    func row(for address: UInt64) -> LineRow? {
        let count = rows.countStarting(atOrBefore: address, \.address)
        guard count > 0 else { return nil }
        let row = rows[count - 1]
        return row.isEndSequence ? nil : row
    }
}

extension Array {
    /// In an array sorted by `start`, how many elements start at or before `address`: the index just past the
    /// last one that does (binary search).
    @inline(__always)
    func countStarting(atOrBefore address: UInt64, _ start: (Element) -> UInt64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if start(self[middle]) <= address { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
