@_spi(Fuzzing) import AxiomPresentation
import Testing

@testable import Axiom

/// `Accept-Language` comes from peers: qualities order the ranges, and anything malformed falls back quietly.
@Suite("Accept-Language")
struct AcceptLanguageTests {
    let offered = ["en", "tr"]

    @Test func qualitiesOrderTheRangesAndTiesKeepHeaderOrder() {
        let header = AcceptLanguage("de;q=0.9, tr-TR, en;q=0.5, fr;q=0.9")
        #expect(header.ranges == ["tr-tr", "de", "fr", "en"])
        #expect(header.preferred(from: offered) == "tr")
    }

    @Test func aRegionalRangeMatchesItsLanguageAndQZeroExcludes() {
        #expect(AcceptLanguage("tr-TR").preferred(from: offered) == "tr")
        #expect(AcceptLanguage("tr;q=0, en").ranges == ["en"])
        #expect(AcceptLanguage("tr;q=0").preferred(from: offered) == "en")
        #expect(AcceptLanguage("*").preferred(from: offered, fallback: "en") == "en")
    }

    @Test func malformedHeadersFallBackWithoutAnError() {
        for header in [
            nil, "", ";;;", "en;q=1.5", "en;q=abc", "123", "e n", "tr;q=0.1234", String(repeating: "x", count: 5000),
        ] {
            let parsed = AcceptLanguage(header)
            #expect(parsed.preferred(from: offered) == "en", "\(String(describing: header))")
        }
        // A malformed quality excludes its range rather than guessing.
        #expect(AcceptLanguage("tr;q=2, en;q=0.1").ranges == ["en"])
    }

    @Test func aHostileHeaderIsReadOnlyUpToItsBounds() {
        let many = (0..<1000).map { _ in "tr" }.joined(separator: ",")
        #expect(AcceptLanguage(many).ranges.count <= AcceptLanguage.maximumRanges)
    }
}
