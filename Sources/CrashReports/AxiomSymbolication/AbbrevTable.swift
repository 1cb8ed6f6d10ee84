/// One unit's abbreviation declarations.
struct AbbrevTable {
    struct Spec {
        var attribute: UInt64
        var form: UInt64
        var implicitConst: Int64
    }

    struct Declaration {
        var tag: UInt64
        var hasChildren: Bool
        /// Whether a DW_AT_sibling attribute says where the DIE's children end.
        var hasSibling: Bool
        /// The size of all attribute values when every form has a fixed size for the unit's shape, else -1.
        var fixedSize: Int32
        var specs: Range<Int>
    }

    /// What attribute sizes depend on.
    struct Shape: Equatable {
        var addressSize: Int
        var offsetSize: Int
        var version: UInt16
    }

    let shape: Shape
    /// Every declaration's attribute specifications, eight bytes each rather than a `Spec`'s 24 (a Swift unit's
    /// table holds hundreds, and each table read ahead is kept): the attribute's name in the top 16 bits, its form
    /// in the next 16, and the index of its implicit constant in `implicitConstants` (DW_FORM_implicit_const
    /// only) in the low 32. DWARF defines no name or form past 0xFFFF; one is kept as 0xFFFF, unknown alike.
    private var packedSpecs: [UInt64] = []
    private var implicitConstants: [Int64] = []
    private var declarations: [Declaration] = []
    /// Declaration index by code, for the dense codes producers use; others in `sparse`.
    private var byCode: [Int32] = []
    private var sparse: [UInt64: Int32] = [:]

    /// Parses the table at `offset` (what can be read of it: a damaged tail ends it).
    init(_ section: DWARFSection, at offset: Int, shape: Shape) {
        self.shape = shape
        packedSpecs.reserveCapacity(512)
        var cursor = DWARFCursor(section, at: offset)
        while !cursor.isAtEnd {
            let code = cursor.uleb()
            if code == 0 || cursor.failed { break }
            let tag = cursor.uleb()
            let hasChildren = cursor.u8() != 0
            let first = packedSpecs.count
            var fixedSize: Int32 = 0
            var hasSibling = false
            while !cursor.isAtEnd {
                let attribute = cursor.uleb()
                let form = cursor.uleb()
                if attribute == 0 && form == 0 { break }
                var constant: UInt64 = 0
                if form == 0x21 {
                    constant = UInt64(implicitConstants.count)
                    implicitConstants.append(cursor.sleb())
                }
                packedSpecs.append(min(attribute, 0xFFFF) << 48 | min(form, 0xFFFF) << 32 | constant)
                if attribute == 0x01 { hasSibling = true }
                if fixedSize >= 0, let size = Self.fixedSize(of: form, shape) {
                    fixedSize += Int32(size)
                } else {
                    fixedSize = -1
                }
            }
            guard !cursor.failed, let index = Int32(exactly: declarations.count) else { break }
            declarations.append(
                Declaration(
                    tag: tag, hasChildren: hasChildren, hasSibling: hasSibling, fixedSize: fixedSize,
                    specs: first..<packedSpecs.count))
            if code < 1 << 16 {
                let slot = Int(code)
                if byCode.count <= slot { byCode.append(contentsOf: repeatElement(-1, count: slot + 1 - byCode.count)) }
                byCode[slot] = index
            } else {
                sparse[code] = index
            }
        }
    }

    /// The size of a form's value, when it does not depend on the value.
    static func fixedSize(of form: UInt64, _ shape: Shape) -> Int? {
        switch form {
        case 0x01: shape.addressSize  // addr
        case 0x0b, 0x0c, 0x11, 0x25, 0x29: 1  // data1, flag, ref1, strx1, addrx1
        case 0x05, 0x12, 0x26, 0x2a: 2  // data2, ref2, strx2, addrx2
        case 0x27, 0x2b: 3  // strx3, addrx3
        case 0x06, 0x13, 0x1c, 0x28, 0x2c: 4  // data4, ref4, ref_sup4, strx4, addrx4
        case 0x07, 0x14, 0x20, 0x24: 8  // data8, ref8, ref_sig8, ref_sup8
        case 0x1e: 16  // data16
        case 0x0e, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21: shape.offsetSize  // strp, sec_offset, …, line_strp
        case 0x10: shape.version <= 2 ? shape.addressSize : shape.offsetSize  // ref_addr
        case 0x19, 0x21: 0  // flag_present, implicit_const
        default: nil
        }
    }

    /// The attribute specification at `index` of a declaration's `specs`.
    @inline(__always)
    func spec(_ index: Int) -> Spec {
        let packed = packedSpecs[index]
        let form = packed >> 32 & 0xFFFF
        return Spec(
            attribute: packed >> 48, form: form,
            implicitConst: form == 0x21 ? implicitConstants[Int(packed & 0xFFFF_FFFF)] : 0)
    }

    @inline(__always)
    func declaration(_ code: UInt64) -> Declaration? {
        if code < UInt64(byCode.count) {
            let index = byCode[Int(code)]
            return index >= 0 ? declarations[Int(index)] : nil
        }
        return sparse[code].map { declarations[Int($0)] }
    }

    /// One declaration's tag, where it starts and where its attribute specifications start, found by scanning the
    /// declarations from `offset` without keeping them.
    static func locate(
        code: UInt64, in section: DWARFSection, at offset: Int
    ) -> (tag: UInt64, hasChildren: Bool, declarationOffset: Int, specsOffset: Int)? {
        var cursor = DWARFCursor(section, at: offset)
        while !cursor.isAtEnd {
            let declarationOffset = cursor.offset
            let current = cursor.uleb()
            if current == 0 || cursor.failed { return nil }
            let tag = cursor.uleb()
            let hasChildren = cursor.u8() != 0
            if current == code { return cursor.failed ? nil : (tag, hasChildren, declarationOffset, cursor.offset) }
            while !cursor.isAtEnd {
                let attribute = cursor.uleb()
                let form = cursor.uleb()
                if attribute == 0 && form == 0 { break }
                if form == 0x21 { _ = cursor.sleb() }
            }
        }
        return nil
    }
}
