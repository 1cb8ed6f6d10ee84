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
