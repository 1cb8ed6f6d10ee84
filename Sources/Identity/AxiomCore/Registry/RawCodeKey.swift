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
// at run time are not immortal and take the dictionary path; they are never keys, since keys must stay valid
// forever.

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

    @inlinable
    var slotHash: Int {
        var h = w0 &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ w1) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ w2) &* 0x94D0_49BB_1331_11EB
        h = (h ^ w3) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h ^ (h >> 29))
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
