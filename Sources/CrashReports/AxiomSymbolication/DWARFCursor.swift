/// A bounds-checked reader over one DWARF section of a mapped file.
///
/// Every read checks the section's end. A read past it returns 0 (or nil) and sets ``failed``, which stays set:
/// callers read a whole structure, then check ``failed`` once. No offset or size read from the file is trusted.
struct DWARFCursor {
    let section: DWARFSection
    /// The offset of the next byte, relative to the start of the section.
    private(set) var offset: Int
    private(set) var failed = false

    init(_ section: DWARFSection, at offset: Int) {
        self.section = section
        self.offset = offset
        if offset < 0 || offset > section.count { failed = true }
    }

    var isAtEnd: Bool { failed || offset >= section.count }

    /// Whether `count` more bytes lie inside the section.
    @inline(__always) private mutating func take(_ count: Int) -> Int? {
        guard !failed, count >= 0, offset <= section.count, count <= section.count - offset else {
            failed = true
            return nil
        }
        let start = offset
        offset += count
        return start
    }

    mutating func seek(to newOffset: Int) {
        guard newOffset >= 0, newOffset <= section.count else {
            failed = true
            return
        }
        offset = newOffset
    }

    mutating func skip(_ count: Int) { _ = take(count) }

    mutating func skip(_ count: UInt64) {
        guard let count = Int(exactly: count) else {
            failed = true
            return
        }
        skip(count)
    }

    mutating func u8() -> UInt8 {
        guard let at = take(1) else { return 0 }
        return section.base.load(fromByteOffset: at, as: UInt8.self)
    }

    mutating func u16() -> UInt16 {
        guard let at = take(2) else { return 0 }
        return UInt16(littleEndian: section.base.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }

    mutating func u24() -> UInt32 {
        guard let at = take(3) else { return 0 }
        let bytes = section.base.advanced(by: at).assumingMemoryBound(to: UInt8.self)
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
    }

    mutating func u32() -> UInt32 {
        guard let at = take(4) else { return 0 }
        return UInt32(littleEndian: section.base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    mutating func u64() -> UInt64 {
        guard let at = take(8) else { return 0 }
        return UInt64(littleEndian: section.base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    /// A DWARF initial length, which starts a unit, a line program or an index: the 4-byte length of a 32-bit
    /// structure, or 0xFFFFFFFF and the 8-byte length of a 64-bit one, with the size of the structure's offsets (4
    /// or 8). Nil for the reserved values 0xFFFFFFF0 to 0xFFFFFFFE, or when the section ends first.
    mutating func initialLength() -> (length: UInt64, offsetSize: Int)? {
        let length = u32()
        if length == 0xFFFF_FFFF {
            let long = u64()
            return failed ? nil : (long, 8)
        }
        guard !failed, length < 0xFFFF_FFF0 else { return nil }
        return (UInt64(length), 4)
    }

    /// An unsigned integer of 1, 2, 4 or 8 bytes (an address or an offset); other sizes fail.
    mutating func unsigned(size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(u8())
        case 2: return UInt64(u16())
        case 4: return UInt64(u32())
        case 8: return u64()
        default:
            failed = true
            return 0
        }
    }

    /// ULEB128. Bits past the 64th are dropped; an encoding longer than the section fails.
    mutating func uleb() -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let at = take(1) else { return 0 }
            let byte = section.base.load(fromByteOffset: at, as: UInt8.self)
            if shift < 64 { result |= UInt64(byte & 0x7F) << shift }
            shift += 7
            if byte & 0x80 == 0 { return result }
        }
    }

    /// SLEB128, sign-extended; bits past the 64th are dropped.
    mutating func sleb() -> Int64 {
        var result: Int64 = 0
        var shift: Int64 = 0
        var byte: UInt8 = 0
        repeat {
            guard let at = take(1) else { return 0 }
            byte = section.base.load(fromByteOffset: at, as: UInt8.self)
            if shift < 64 { result |= Int64(byte & 0x7F) << shift }
            shift += 7
        } while byte & 0x80 != 0
        if shift < 64 && byte & 0x40 != 0 { result |= -(Int64(1) << shift) }
        return result
    }

    /// Skips a NUL-terminated string and returns its offset, or nil when it runs past the section.
    mutating func cString() -> Int? {
        guard !failed, offset < section.count else {
            failed = true
            return nil
        }
        let start = offset
        guard let length = section.stringLength(at: start) else {
            failed = true
            return nil
        }
        offset = start + length + 1
        return start
    }
}

/// The bytes of one section of a mapped file (the mapping is kept alive by the ``ELFImage`` that owns it).
struct DWARFSection {
    let base: UnsafeRawPointer
    let count: Int

    /// No bytes: what a missing section reads as.
    static var empty: DWARFSection { DWARFSection(base: UnsafeRawPointer(bitPattern: 1)!, count: 0) }

    /// The length of the NUL-terminated string at `offset`, or nil when no NUL ends it inside the section.
    func stringLength(at offset: Int) -> Int? {
        guard offset >= 0, offset < count else { return nil }
        let start = base.advanced(by: offset)
        guard let end = memchr(start, 0, count - offset) else { return nil }
        return UnsafeRawPointer(end) - start
    }

    /// The NUL-terminated string at `offset`, or nil when it is not wholly inside the section.
    func string(at offset: UInt64) -> String? {
        guard let offset = Int(exactly: offset), let length = stringLength(at: offset) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: base.advanced(by: offset), count: length)
        return String(decoding: bytes, as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
