// Fixtures for OverflowTrapTests: overflow-checked arithmetic. The Swift compiler turns each check's trap (`ud2`)
// into an inlined call of the artificial function "Swift runtime failure: arithmetic overflow", whose
// DW_TAG_inlined_subroutine records the arithmetic as its call site.
//
// Kept alone in this file, in this order, for the shape of the unit's DWARF: the extension of an imported type
// comes first, so the unit's first DW_TAG_module is `Swift` (the method's concrete subprogram sits in it, inside
// `Int`) and this module's own DW_TAG_module (holding `overflowFixtureSum`) comes second. A walker that visits
// only the first module entry misses `overflowFixtureSum`; one that visits only the unit's own module misses
// `overflowFixtureTripled`.

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
