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

    /// One slot: a code's hash, where its bytes are, and its descriptor; empty when `descriptor` is nil. The slots
    /// hold the entries themselves, so that a probe reads one cache line and the code's bytes one more.
    private struct Entry {
        var hash: UInt64 = 0
        /// The domain's bytes, then the code's, in `bytes`.
        var offset: UInt32 = 0
        var domainCount: UInt32 = 0
        var codeCount: UInt32 = 0
        /// Registered descriptors are immortal (see ``Snapshot``).
        var descriptor: Unmanaged<ErrorDescriptor>?
    }

    /// A power of two at least twice the entries.
    private let slots: UnsafeMutablePointer<Entry>
    private let bytes: UnsafeMutablePointer<UInt8>
    private let mask: Int
    /// Whether every registered name is ASCII, so that a miss of an ASCII code is exact.
    private let isASCII: Bool
    /// False when the names' bytes do not fit 32-bit offsets (4 GiB of names: never, in practice): every lookup then
    /// takes the dictionary.
    private let isUsable: Bool

    /// A table of `codes` (each key once, as a dictionary's keys are).
    init(_ codes: [ErrorCode: ErrorDescriptor]) {
        let byteCount = codes.keys.reduce(0) { $0 + $1.domain.utf8.count + $1.code.utf8.count }
        isUsable = byteCount <= Int(UInt32.max)
        var slotCount = 8
        while slotCount < codes.count * 2 && isUsable { slotCount <<= 1 }
        slots = .allocate(capacity: slotCount)
        slots.initialize(repeating: Entry(), count: slotCount)
        mask = slotCount - 1
        bytes = .allocate(capacity: isUsable ? max(byteCount, 1) : 1)
        var offset = 0
        var ascii = true
        for (code, descriptor) in codes where isUsable {
            let domainCount = Self.append(code.domain, at: bytes + offset)
            let codeCount = Self.append(code.code, at: bytes + offset + domainCount)
            let domainBytes = UnsafeBufferPointer(start: bytes + offset, count: domainCount)
            let codeBytes = UnsafeBufferPointer(start: bytes + offset + domainCount, count: codeCount)
            let (hash, isASCII) = Self.hash(domainBytes, codeBytes)
            ascii = ascii && isASCII
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].descriptor != nil { slot = (slot &+ 1) & mask }
            slots[slot] = Entry(
                hash: hash, offset: UInt32(offset), domainCount: UInt32(domainCount), codeCount: UInt32(codeCount),
                descriptor: Unmanaged.passUnretained(descriptor))
            offset += domainCount + codeCount
        }
        isASCII = ascii
    }

    /// Frees the table's memory. Its owner calls it once, when no reader can hold the table.
    func deallocate() {
        slots.deallocate()
        bytes.deallocate()
    }

    /// The descriptor registered under the code at `code`, that none is, or that the bytes cannot tell.
    ///
    /// The code is read where it lies (a `DomainError`'s, inside the error): a copy passed down would retain and
    /// release its heap strings, two atomic operations each, a third of a long code's lookup.
    @inline(__always)
    func lookup(_ code: UnsafePointer<ErrorCode>) -> Answer {
        // Both strings' bytes in place: native and inline strings have them; a bridged one does not, and takes
        // the dictionary.
        code.pointee.domain.utf8.withContiguousStorageIfAvailable { domain in
            code.pointee.code.utf8.withContiguousStorageIfAvailable { name in lookup(domain, name) } ?? .unknown
        } ?? .unknown
    }

    private func lookup(_ domain: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>) -> Answer {
        guard isUsable else { return .unknown }
        let (hash, isASCII) = Self.hash(domain, name)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            guard let descriptor = entry.descriptor else { return isASCII && self.isASCII ? .miss : .unknown }
            if entry.hash == hash && Int(entry.domainCount) == domain.count && Int(entry.codeCount) == name.count {
                let stored = bytes + Int(entry.offset)
                if Self.same(stored, domain) && Self.same(stored + domain.count, name) { return .hit(descriptor) }
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
        let copied = string.utf8.withContiguousStorageIfAvailable { bytes in
            if let base = bytes.baseAddress { target.update(from: base, count: bytes.count) }
            return bytes.count
        }
        if let copied { return copied }
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
