@_spi(Fuzzing) import AxiomPresentation
import Testing

@testable import Axiom

/// `Accept-Language` read byte by byte gives what a plain reading of the header's text gives: the same ranges in the
/// same order, for headers as clients send them and for any mix of the bytes a header is made of.
@Suite("Accept-Language, read byte by byte")
struct AcceptLanguageReadingTests {
    @Test func browsersHeadersAreReadAndMatchedWithoutRegardToCase() {
        let header = AcceptLanguage("en-US,en;q=0.9,fr;q=0.8,de;q=0.7,*;q=0.5")
        #expect(header.ranges == ["en-us", "en", "fr", "de", "*"])
        #expect(header.preferred(from: ["tr", "FR"]) == "FR")
        #expect(AcceptLanguage("TR-tr").preferred(from: ["en", "Tr"]) == "Tr")
        #expect(AcceptLanguage("zh-Hant-TW;Q=0.3, x-klingon").ranges == ["x-klingon", "zh-hant-tw"])
    }

    @Test func onlyASCIIIsARangeOrAQuality() {
        // The Kelvin sign lower-cases to `k`, a non-breaking space is white space: neither is ASCII.
        #expect(AcceptLanguage("\u{212A}").ranges.isEmpty)
        #expect(AcceptLanguage("\u{00A0}tr").ranges.isEmpty)
        #expect(AcceptLanguage("tr;q=\u{0660}.5, en").ranges == ["en"])
        #expect(AcceptLanguage(" \ttr ;  q=0.5 , en-GB\t").ranges == ["en-gb", "tr"])
    }

    @Test(arguments: 0..<8)
    func anyMixOfHeaderBytesReadsAsThePlainReadingDoes(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        let alphabet = Array("aAzZeEnNtTrRqQ019-*.,;= \t".utf8)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 40)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let header = String(decoding: bytes, as: UTF8.self)
            #expect(AcceptLanguage(header).ranges == PlainReading.ranges(header), "\(header)")
        }
    }
}

/// The header read as text, field by field: how the framework read it before it read bytes. The reference the
/// byte reader is held to (on ASCII headers, where the two readings are meant to agree).
private enum PlainReading {
    static func ranges(_ header: String) -> [String] {
        var weighted: [(range: String, quality: Int, index: Int)] = []
        for (index, part) in header.utf8.prefix(AcceptLanguage.maximumLength).split(separator: UInt8(ascii: ","))
            .prefix(AcceptLanguage.maximumRanges).enumerated()
        {
            let fields = part.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            guard let first = fields.first, let range = range(first) else { continue }
            var quality = 1000
            for parameter in fields.dropFirst() {
                let text = String(decoding: parameter, as: UTF8.self).trimmingWhitespace().lowercased()
                guard text.hasPrefix("q=") else { continue }
                quality = Self.quality(text.dropFirst(2)) ?? 0
            }
            if quality > 0 { weighted.append((range, quality, index)) }
        }
        weighted.sort { $0.quality != $1.quality ? $0.quality > $1.quality : $0.index < $1.index }
        return weighted.map(\.range)
    }

    static func range(_ bytes: Substring.UTF8View.SubSequence) -> String? {
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace().lowercased()
        if text == "*" { return text }
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = subtags.first, (1...8).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter }),
            subtags.dropFirst().allSatisfy({
                (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            })
        else { return nil }
        return text
    }

    static func quality(_ text: Substring) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        var thousandths = whole == "1" ? 1000 : 0
        if parts.count == 2 {
            let decimals = parts[1]
            guard decimals.count <= 3, decimals.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let padded = decimals + String(repeating: "0", count: 3 - decimals.count)
            guard let value = Int(padded) else { return nil }
            if whole == "1" && value != 0 { return nil }
            thousandths += value
        }
        return thousandths
    }
}

/// A small seeded generator, so that a failing header is found again from its seed.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
