import AxiomCatalog

/// A snapshot's registered codes keyed by the UTF-8 bytes of their names, for codes that are no fast key
/// (``RawCodeKey``): strings of more than 15 bytes built at run time, as a peer's codes are when they are decoded.
///
/// `[ErrorCode: ErrorDescriptor]` hashes both strings with SipHash and compares them through the standard library's
/// Unicode comparison: tens of nanoseconds, more than a typed error's whole lookup. This table hashes the bytes with a
/// few multiplications and compares them eight at a time. It is built once per snapshot and never changed, so what a
/// peer sends cannot lengthen its probe sequences: the longest is set by the registered codes alone.
///
/// Equal bytes are equal strings, so a hit is exact. A miss is exact only when the code and every registered code
/// are ASCII: Swift compares strings by canonical equivalence, and two spellings of one non-ASCII name (composed and
/// decomposed) have different bytes. Otherwise ``lookup(_:)`` says it does not know, and the caller asks the
/// dictionary.
struct CodeTable: @unchecked Sendable {
    // @unchecked: the memory is written in `init`, before the table can be shared, and only read after. Its owner
    // frees it (`deallocate()`) when no reader can hold it any more.

    /// What a lookup found.
    enum Answer {
        case hit(Unmanaged<ErrorDescriptor>)
        case miss
        /// The bytes cannot tell (see the type's comment): ask the dictionary.
        case unknown
    }

    private struct Entry {
        var hash: UInt64
        /// The domain's bytes, then the code's, in `bytes`.
        var offset: Int
        var domainCount: Int
        var codeCount: Int
        /// Registered descriptors are immortal (see ``Snapshot``).
        var descriptor: Unmanaged<ErrorDescriptor>
    }

    /// One index + 1 per slot, 0 when empty; a power of two at least twice the entries.
    private let slots: UnsafeMutablePointer<Int32>
    private let entries: UnsafeMutablePointer<Entry>
    private let bytes: UnsafeMutablePointer<UInt8>
    private let mask: Int
    private let count: Int
    /// Whether every registered name is ASCII, so that a miss of an ASCII code is exact.
    private let isASCII: Bool

    /// A table of `codes` (each key once, as a dictionary's keys are).
    init(_ codes: [ErrorCode: ErrorDescriptor]) {
        var slotCount = 8
        while slotCount < codes.count * 2 { slotCount <<= 1 }
        slots = .allocate(capacity: slotCount)
        slots.initialize(repeating: 0, count: slotCount)
        mask = slotCount - 1
        entries = .allocate(capacity: codes.count)
        let byteCount = codes.keys.reduce(0) { $0 + $1.domain.utf8.count + $1.code.utf8.count }
        bytes = .allocate(capacity: max(byteCount, 1))
        var offset = 0
        var index = 0
        var ascii = true
        for (code, descriptor) in codes {
            let domainCount = Self.append(code.domain, at: bytes + offset)
            let codeCount = Self.append(code.code, at: bytes + offset + domainCount)
            let domainBytes = UnsafeBufferPointer(start: bytes + offset, count: domainCount)
            let codeBytes = UnsafeBufferPointer(start: bytes + offset + domainCount, count: codeCount)
            let (hash, isASCII) = Self.hash(domainBytes, codeBytes)
            ascii = ascii && isASCII
            (entries + index).initialize(
                to: Entry(
                    hash: hash, offset: offset, domainCount: domainCount, codeCount: codeCount,
                    descriptor: Unmanaged.passUnretained(descriptor)))
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot &+ 1) & mask }
            index += 1
            slots[slot] = Int32(index)
            offset += domainCount + codeCount
        }
        count = index
        isASCII = ascii
    }

    /// Frees the table's memory. Its owner calls it once, when no reader can hold the table.
    func deallocate() {
        slots.deallocate()
        entries.deinitialize(count: count)
        entries.deallocate()
        bytes.deallocate()
    }

    /// The descriptor registered under `code`, that none is, or that the bytes cannot tell.
    @inline(__always)
    func lookup(_ code: ErrorCode) -> Answer {
        // Both strings' bytes in place: native and inline strings have them; a bridged one does not, and takes
        // the dictionary.
        code.domain.utf8.withContiguousStorageIfAvailable { domain in
            code.code.utf8.withContiguousStorageIfAvailable { name in lookup(domain, name) } ?? .unknown
        } ?? .unknown
    }

    private func lookup(_ domain: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>) -> Answer {
        let (hash, isASCII) = Self.hash(domain, name)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let index = Int(slots[slot])
            if index == 0 { return isASCII && self.isASCII ? .miss : .unknown }
            let entry = entries[index &- 1]
            if entry.hash == hash && entry.domainCount == domain.count && entry.codeCount == name.count
                && Self.same(bytes + entry.offset, domain) && Self.same(bytes + entry.offset + domain.count, name)
            {
                return .hit(entry.descriptor)
            }
            slot = (slot &+ 1) & mask
        }
    }

    private static func same(_ stored: UnsafePointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let (left, right) = (UnsafeRawPointer(stored), UnsafeRawPointer(base))
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            guard word == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        while offset < bytes.count {
            guard
                left.load(fromByteOffset: offset, as: UInt8.self) == right.load(fromByteOffset: offset, as: UInt8.self)
            else { return false }
            offset += 1
        }
        return true
    }

    /// Copies a string's UTF-8 bytes to `target`, and returns how many there are.
    private static func append(_ string: String, at target: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 0
        for byte in string.utf8 {
            target[count] = byte
            count += 1
        }
        return count
    }

    /// The hash of a domain's and a code's bytes, and whether both are ASCII.
    @inline(__always)
    private static func hash(
        _ domain: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>
    ) -> (UInt64, Bool) {
        var high: UInt64 = 0
        let first = hash(domain, seed: 0x243F_6A88_85A3_08D3, high: &high)
        let hash = hash(name, seed: first, high: &high)
        return (hash, high & 0x8080_8080_8080_8080 == 0)
    }

    /// Eight bytes at a time, each word folded through one full-width multiplication (``RawCodeKey/fold(_:_:)``);
    /// the last word is the last eight bytes, overlapping the one before, so there is no loop over a tail. `high`
    /// collects every byte's top bit.
    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64, high: inout UInt64) -> UInt64 {
        let count = bytes.count
        var hash = seed ^ UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        guard let base = bytes.baseAddress.map(UnsafeRawPointer.init), count > 0 else { return hash }
        if count < 8 {
            var word: UInt64 = 0
            for index in 0..<count { word |= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) << (index * 8) }
            high |= word
            return RawCodeKey.fold(hash ^ word, 0xA076_1D64_78BD_642F)
        }
        var offset = 0
        while offset + 8 < count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            high |= word
            hash = RawCodeKey.fold(hash ^ word, 0xA076_1D64_78BD_642F)
            offset += 8
        }
        let last = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        high |= last
        return RawCodeKey.fold(hash ^ last, 0xE703_7ED1_A0B4_28DB)
    }
}
