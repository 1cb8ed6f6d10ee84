import AxiomCore

/// An HTTP `Accept-Language` header (RFC 9110 §12.5.4), read as the locales a client prefers and matched against
/// the locales a registry has texts for.
///
/// `tr-TR, tr;q=0.9, en;q=0.5` asks for Turkish first. Ranges are tried by quality, highest first, and in header
/// order between equal qualities; `q=0` excludes a language. A range matches a locale whose language it names
/// (`tr-TR` matches `tr`), and `*` matches the base locale. A header that is absent, malformed or asks only for
/// locales without texts falls back to the base locale (`en`), never to an error: it comes from a peer.
public struct AcceptLanguage: Sendable, Hashable {
    /// The language ranges, lower-cased, best first. Ranges past ``maximumRanges`` are ignored.
    @_spi(Fuzzing) public let ranges: [String]

    /// The most ranges read from one header, so that a hostile header costs a bounded amount of work.
    @_spi(Fuzzing) public static let maximumRanges = 32
    /// The longest header read; the rest is ignored.
    package static let maximumLength = 1024

    /// Parses a header value; `nil` is no header.
    public init(_ header: String?) {
        guard let header else {
            ranges = []
            return
        }
        var weighted: [(range: String, quality: Int, index: Int)] = []
        for (index, part) in header.utf8.prefix(Self.maximumLength).split(separator: UInt8(ascii: ","))
            .prefix(Self.maximumRanges).enumerated()
        {
            let fields = part.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            guard let first = fields.first, let range = Self.range(first) else { continue }
            var quality = 1000
            for parameter in fields.dropFirst() {
                let text = String(decoding: parameter, as: UTF8.self).trimmingWhitespace().lowercased()
                guard text.hasPrefix("q=") else { continue }
                quality = Self.quality(text.dropFirst(2)) ?? 0
            }
            if quality > 0 { weighted.append((range, quality, index)) }
        }
        weighted.sort { $0.quality != $1.quality ? $0.quality > $1.quality : $0.index < $1.index }
        ranges = weighted.map(\.range)
    }

    /// The best of `available` for this header, or `fallback` when none matches.
    public func preferred(from available: [String], fallback: String = Localizer.baseLocale) -> String {
        guard !ranges.isEmpty else { return fallback }
        let locales = available.map { $0.lowercased() }
        for range in ranges {
            if range == "*" { return fallback }
            if let exact = locales.firstIndex(of: range) { return available[exact] }
            let language = String(range.prefix { $0 != "-" })
            if let match = locales.firstIndex(of: language) { return available[match] }
        }
        return fallback
    }

    /// A language range: `*`, or 1 to 8 letters followed by `-` subtags of 1 to 8 letters or digits.
    private static func range(_ bytes: Substring.UTF8View.SubSequence) -> String? {
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

    /// A quality value, `0` to `1` with up to three decimals, in thousandths; nil when malformed.
    private static func quality(_ text: Substring) -> Int? {
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
