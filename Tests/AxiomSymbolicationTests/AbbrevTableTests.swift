import Testing

@testable import AxiomSymbolication

/// A unit's table of abbreviations, kept compact: every attribute specification must read back as it was written,
/// implicit constants among them, and names or forms DWARF does not define must stay unknown.
@Suite("A table of abbreviations reads back what it declares")
struct AbbrevTableTests {
    /// ULEB128 and SLEB128, as a producer writes them.
    private func uleb(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7F)
            value >>= 7
            if value != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value != 0
        return bytes
    }

    private func sleb(_ value: Int64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while true {
            let byte = UInt8(value & 0x7F)
            value >>= 7
            if (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0) {
                bytes.append(byte)
                return bytes
            }
            bytes.append(byte | 0x80)
        }
    }

    @Test func everySpecificationReadsBackAsDeclared() {
        // Declaration 1: a compile unit with children, its name inline and two implicit constants (one negative,
        // one large). Declaration 2: a subprogram with a sibling, an attribute and a form past 0xFFFF.
        var bytes = uleb(1) + uleb(0x11) + [1]
        bytes += uleb(0x03) + uleb(0x08)
        bytes += uleb(0x13) + uleb(0x21) + sleb(-5)
        bytes += uleb(0x20) + uleb(0x21) + sleb(Int64(1) << 40)
        bytes += [0, 0]
        bytes += uleb(2) + uleb(0x2e) + [0]
        bytes += uleb(0x1_0011) + uleb(0x0b)
        bytes += uleb(0x01) + uleb(0x13)
        bytes += uleb(0x3b) + uleb(0x1_ffff)
        bytes += [0, 0, 0]
        bytes.withUnsafeBytes { buffer in
            let section = DWARFSection(base: buffer.baseAddress!, count: buffer.count)
            let table = AbbrevTable(section, at: 0, shape: .init(addressSize: 8, offsetSize: 4, version: 5))
            let unit = table.declaration(1)
            #expect(unit?.tag == 0x11)
            #expect(unit?.hasChildren == true)
            #expect(unit?.hasSibling == false)
            let unitSpecs = unit.map { Array($0.specs).map(table.spec) } ?? []
            #expect(unitSpecs.map(\.attribute) == [0x03, 0x13, 0x20])
            #expect(unitSpecs.map(\.form) == [0x08, 0x21, 0x21])
            #expect(unitSpecs.map(\.implicitConst) == [0, -5, Int64(1) << 40])
            // A name is not of fixed size; implicit constants take no bytes.
            #expect(unit?.fixedSize == -1)

            let subprogram = table.declaration(2)
            #expect(subprogram?.tag == 0x2e)
            #expect(subprogram?.hasChildren == false)
            #expect(subprogram?.hasSibling == true)
            let specs = subprogram.map { Array($0.specs).map(table.spec) } ?? []
            // 0x1_0011 is no DW_AT_low_pc (0x11): names and forms past 0xFFFF read as 0xFFFF, known to no reader.
            #expect(specs.map(\.attribute) == [0xFFFF, 0x01, 0x3b])
            #expect(specs.map(\.form) == [0x0b, 0x13, 0xFFFF])
            #expect(specs.allSatisfy { $0.implicitConst == 0 })
            #expect(subprogram?.fixedSize == -1)
            #expect(table.declaration(3) == nil)
        }
    }
}
