import Axiom
import Testing

/// The names a disposition is read from: a catalog, a plugin's C descriptor and a log line all use the four words,
/// and `default`, the word version-1 plugins were written with for `handle`, reads as `handle` for all of ABI 1.
@Suite("Disposition names")
struct DispositionNameTests {
    @Test("each disposition is read back from its own name", arguments: Disposition.allCases)
    func ownName(disposition: Disposition) {
        #expect(Disposition(rawValue: disposition.rawValue) == disposition)
    }

    @Test("a version-1 plugin's \"default\" is handle; an unknown word is nothing")
    func pluginWords() {
        #expect(Disposition(rawValue: "default") == .handle)
        #expect(Disposition(rawValue: "Handle") == nil)
        #expect(Disposition(rawValue: "") == nil)
    }
}
