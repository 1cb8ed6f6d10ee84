// Fixtures for OverflowTrapTests: overflow-checked arithmetic. The Swift compiler turns each check's trap (`ud2`)
// into an inlined call of the artificial function "Swift runtime failure: arithmetic overflow", whose
// DW_TAG_inlined_subroutine records the arithmetic as its call site.
//
// Kept alone in this file, in this order, for the shape of the unit's DWARF: the extension of an imported type
// comes first, so the unit's first DW_TAG_module is `Swift` (it holds the method's declaration, inside `Int`; the
// concrete subprogram sits at unit level and points to it with DW_AT_specification) and this module's own
// DW_TAG_module, which holds the concrete subprogram of `overflowFixtureSum`, comes second. A walker that takes
// the first module entry for the unit's own module misses `overflowFixtureSum`.

extension Int {
    @inline(never)
    func overflowFixtureTripled() -> Int {
        self * 3  // overflow-trap: tripled
    }
}

@inline(never)
func overflowFixtureSum(_ values: [Int]) -> Int {
    var total = 0
    for value in values {
        total += value  // overflow-trap: sum
    }
    return total
}

/// This file's path, where the tests look for the marker comments.
func overflowTrapFixturesPath() -> String { #filePath }
