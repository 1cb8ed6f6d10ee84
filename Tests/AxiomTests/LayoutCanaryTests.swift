import Testing

@testable import AxiomCore

/// The registry's read path reads a few standard-library layouts that no Swift release promises: a string's two
/// raw words (immortal strings as exact table keys), `_isPOD` and a small plain value's bytes as an integer (a
/// value's identity without calling its witnesses), and a task handle as one word (the deadline scheduler's
/// cancellation). Each test here states one of them and fails if a release changes it. Building with
/// `-Xswiftc -DAXIOM_PORTABLE_LAYOUT` turns the fast paths off (every lookup hashes the code; no value is read as
/// bytes), and CI runs the suite once that way (its AddressSanitizer run).
/// Whether this build reads standard-library layouts on the registry's fast paths (not built with
/// `AXIOM_PORTABLE_LAYOUT`).
enum LayoutFastPaths {
    #if AXIOM_PORTABLE_LAYOUT
    static let enabled = false
    #else
    static let enabled = true
    #endif
}

@Suite("Standard-library layouts the fast paths rely on")
struct LayoutCanaryTests {
    static func rawWords(_ string: String) -> (UInt64, UInt64) { unsafeBitCast(string, to: (UInt64, UInt64).self) }
    /// The top bit of a string's object word: immortal (a literal, or a small string stored inline).
    static func isImmortal(_ string: String) -> Bool { rawWords(string).1 >> 63 == 1 }

    enum Plain { case a(Int32), b(UInt8), c }
    enum Referencing { case a(String), b }
    enum Cases { case x, y, z }
    /// Two bytes: a payload byte and a tag byte.
    enum TwoBytes { case a(UInt8), b(UInt8) }

    @Test("a string is two words; literals and short strings are immortal, a long string built at run time is not")
    func stringWords() {
        #expect(MemoryLayout<String>.size == 16)
        #expect(Self.isImmortal("a literal code longer than fifteen bytes"))
        let short = String(repeating: "b", count: 5)
        #expect(Self.isImmortal(short))
        #expect(Self.isImmortal(String(repeating: "b", count: 15)))
        #expect(!Self.isImmortal(String(repeating: "c", count: 40)))
        #expect(!Self.isImmortal(String(repeating: "c", count: 16)))
    }

    @Test("a short string's raw words are its contents: equal strings, equal words; different strings, different")
    func shortStringWordsAreContents() {
        let built = String(repeating: "b", count: 5)
        #expect(Self.rawWords(built) == Self.rawWords("bbbbb"))
        #expect(Self.rawWords(built) != Self.rawWords("bbbbc"))
        #expect(Self.rawWords("shop") != Self.rawWords("shop "))
    }

    @Test("a literal code has a raw key, a code built at run time past 15 bytes has none")
    func rawCodeKeys() {
        let literal = ErrorCode("shop.inventory", "OUT_OF_STOCK")
        let built = ErrorCode(String(repeating: "d", count: 20), "BUILT_AT_RUN_TIME_LONG")
        #if AXIOM_PORTABLE_LAYOUT
        #expect(RawCodeKey(literal) == nil)
        #else
        #expect(RawCodeKey(literal) != nil)
        #expect(RawCodeKey(literal) == RawCodeKey(ErrorCode("shop.inventory", "OUT_OF_STOCK")))
        #endif
        #expect(RawCodeKey(built) == nil)
    }

    @Test("_isPOD: enums of integers are plain; a String payload, a class reference and AnyObject are not")
    func plainTypes() {
        #expect(_isPOD(Plain.self))
        #expect(_isPOD(Cases.self))
        #expect(!_isPOD(Referencing.self))
        #expect(!_isPOD(AnyObject.self))
        #expect(!_isPOD((any Error).self))
    }

    @Test("a plain value's bytes are one integer per case: distinct cases read as distinct integers")
    func plainValueBits() {
        #expect(MemoryLayout<Cases>.size == 1)
        let bits = [Cases.x, .y, .z].map { plainBits(of: $0) }
        #if AXIOM_PORTABLE_LAYOUT
        #expect(bits.allSatisfy { $0 == nil })
        #else
        #expect(Set(bits.compactMap { $0 }).count == 3)
        #expect(MemoryLayout<TwoBytes>.size == 2)
        #expect(plainBits(of: TwoBytes.a(7)) != nil)
        #expect(plainBits(of: TwoBytes.a(7)) != plainBits(of: TwoBytes.a(8)))
        #expect(plainBits(of: TwoBytes.a(7)) != plainBits(of: TwoBytes.b(7)))
        #endif
        #expect(plainBits(of: Referencing.b) == nil)
    }

    @Test("a task handle is one word")
    func taskHandle() {
        #expect(MemoryLayout<UnsafeCurrentTask>.size == MemoryLayout<UInt>.size)
    }
}
