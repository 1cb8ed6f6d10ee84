import AxiomCatalog
import Synchronization

// Hash-free lookup tables for the registry's read path.
//
// A dictionary keyed by `ErrorCode` hashes two strings with SipHash on every lookup: tens of nanoseconds,
// more than the whole budget of a handled error. Codes that come from string literals (every
// `IdentifiableError` written in Swift) are immortal strings: their 16 raw bytes never change and never
// name another string, so the pair of raw representations is a perfect key that hashes in a few
// instructions. Strings of up to 15 bytes are stored inline, whether literal or built at run time: their raw
// bytes are their contents, so they are exact keys too. That makes codes a peer sends (decoded from JSON) fast
// keys as well, so the owners of these tables bound what peers can add: the registry remembers a fixed number
// of unknown codes, and the metrics observer keys its counters by descriptor, not by code. Longer strings built
// at run time are not immortal and take the snapshot's path (`CodeTable`, by their bytes); they are never keys,
// since keys must stay valid forever.

/// The raw bits of two immortal strings: an exact identity for an `ErrorCode` made of literals.
@usableFromInline
struct RawCodeKey: Hashable, Sendable {
    @usableFromInline var w0, w1, w2, w3: UInt64

    /// The key of a code, or nil when either string is not immortal (and so may be freed and its bits reused).
    @inlinable
    init?(_ code: ErrorCode) {
        #if AXIOM_PORTABLE_LAYOUT
        // The trait reads no string's layout: every code takes the dictionary path.
        return nil
        #else
        let domain = unsafeBitCast(code.domain, to: (UInt64, UInt64).self)
        let name = unsafeBitCast(code.code, to: (UInt64, UInt64).self)
        // The top bit of a string's object word marks it immortal: small (inline) strings and literals.
        guard domain.1 >> 63 == 1, name.1 >> 63 == 1 else { return nil }
        (w0, w1, w2, w3) = (domain.0, domain.1, name.0, name.1)
        #endif
    }

    /// The key of the code at `code`, read where it lies: copying the code out would retain and release its
    /// strings when they are on the heap, only to find that they make no key.
    @inlinable @inline(__always)
    init?(at code: UnsafePointer<ErrorCode>) {
        #if AXIOM_PORTABLE_LAYOUT
        return nil
        #else
        let raw = UnsafeRawPointer(code)
        let domain = MemoryLayout<ErrorCode>.offset(of: \ErrorCode.domain)!
        let name = MemoryLayout<ErrorCode>.offset(of: \ErrorCode.code)!
        (w0, w1) = (
            raw.load(fromByteOffset: domain, as: UInt64.self), raw.load(fromByteOffset: domain + 8, as: UInt64.self)
        )
        (w2, w3) = (
            raw.load(fromByteOffset: name, as: UInt64.self), raw.load(fromByteOffset: name + 8, as: UInt64.self)
        )
        guard w1 >> 63 == 1, w3 >> 63 == 1 else { return nil }
        #endif
    }

    /// A slot hash in which every bit of the four words counts. A multiply carries a word's bits only upwards, so
    /// the chain ends with one full-width multiplication whose high half is folded into its low half (as wyhash
    /// mixes): without it, codes that differ only in their later characters (`CODE_100`, `CODE_200`: the high bytes
    /// of a word) shared their low bits, and so a slot and one long probe sequence.
    @inlinable @inline(__always)
    var slotHash: Int {
        var h = w0 &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ w1) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ w2) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: Self.fold(h ^ w3, 0x9E37_79B9_7F4A_7C15))
    }

    /// The two halves of the full product, combined: one multiplication that spreads every bit of either operand.
    @inlinable @inline(__always)
    static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }
}

extension ObjectIdentifier {
    /// A cheap hash of a type's metadata address: the low bits are alignment, the rest spread well enough.
    @inlinable
    var slotHash: Int {
        let bits = UInt(bitPattern: Int(bitPattern: self)) &* 0x9E37_79B9_7F4A_7C15
        return Int(bitPattern: bits >> 7)
    }
}
