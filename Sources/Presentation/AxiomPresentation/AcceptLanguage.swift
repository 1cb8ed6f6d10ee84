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
    ///
    /// Read byte by byte, as ASCII (RFC 9110's ranges and qualities are ASCII): a range or a quality with another
    /// byte in it is malformed and ignored, and the white space trimmed around them is ASCII's (space, tab, line
    /// breaks). A server reads this header for every error it answers, and clients send it with every request.
    public init(_ header: String?) {
        guard var header else {
            ranges = []
            return
        }
        ranges = header.withUTF8 { Self.ranges(in: UnsafeBufferPointer(rebasing: $0.prefix(Self.maximumLength))) }
    }

    /// The ranges of a header's bytes, best first.
    private static func ranges(in header: UnsafeBufferPointer<UInt8>) -> [String] {
        var weighted: [(range: String, quality: Int, index: Int)] = []
        // Each non-empty comma-separated part counts towards `maximumRanges`, read or not.
        var index = 0
        var start = 0
        while start < header.count, index < maximumRanges {
            let end = header[start...].firstIndex(of: UInt8(ascii: ",")) ?? header.count
            if end > start {
                if let entry = entry(header[start..<end]), entry.quality > 0 {
                    weighted.append((entry.range, entry.quality, index))
                }
                index += 1
            }
            start = end + 1
        }
        if weighted.count > 1 {
            weighted.sort { $0.quality != $1.quality ? $0.quality > $1.quality : $0.index < $1.index }
        }
        return weighted.map(\.range)
    }

    /// One part of the header: its range and its quality (the last `q` parameter's; 1000 without one, 0 when
    /// malformed), or nil when the range is malformed.
    private static func entry(_ part: Slice<UnsafeBufferPointer<UInt8>>) -> (range: String, quality: Int)? {
        let semicolon = UInt8(ascii: ";")
        let rangeEnd = part.firstIndex(of: semicolon) ?? part.endIndex
        guard let range = Self.range(trimmed(part[part.startIndex..<rangeEnd])) else { return nil }
        var quality = 1000
        var start = rangeEnd
        while start < part.endIndex {
            start += 1
            let end = part[start...].firstIndex(of: semicolon) ?? part.endIndex
            let parameter = trimmed(part[start..<end])
            if parameter.count >= 2, lowercased(parameter.first!) == UInt8(ascii: "q"),
                parameter[parameter.startIndex + 1] == UInt8(ascii: "=")
            {
                quality = Self.quality(parameter.dropFirst(2)) ?? 0
            }
            start = end
        }
        return (range, quality)
    }

    /// `byte`, lower-cased if it is an ASCII capital.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// `bytes` without the ASCII white space around them.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return bytes[bytes.endIndex...] }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[first...last]
    }

    /// A language range, lower-cased: `*`, or 1 to 8 letters followed by `-` subtags of 1 to 8 letters or digits;
    /// nil for anything else.
    private static func range(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        if bytes.count == 1, bytes.first == UInt8(ascii: "*") { return "*" }
        var subtagLength = 0
        var isFirstSubtag = true
        for byte in bytes {
            if byte == UInt8(ascii: "-") {
                guard subtagLength > 0 else { return nil }
                subtagLength = 0
                isFirstSubtag = false
                continue
            }
            let lower = lowercased(byte)
            let isLetter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isLetter || (isDigit && !isFirstSubtag), subtagLength < 8 else { return nil }
            subtagLength += 1
        }
        guard subtagLength > 0 else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() {
                buffer[offset] = lowercased(byte)
            }
            return bytes.count
        }
    }

    /// A quality value, `0` to `1` with up to three decimals, in thousandths; nil when malformed.
    private static func quality(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard let whole = bytes.first, whole == UInt8(ascii: "0") || whole == UInt8(ascii: "1") else { return nil }
        var thousandths = whole == UInt8(ascii: "1") ? 1000 : 0
        let rest = bytes.dropFirst()
        guard let point = rest.first else { return thousandths }
        let decimals = rest.dropFirst()
        guard point == UInt8(ascii: "."), decimals.count <= 3 else { return nil }
        var value = 0
        for byte in decimals {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        for _ in decimals.count..<3 { value *= 10 }
        if whole == UInt8(ascii: "1") && value != 0 { return nil }
        thousandths += value
        return thousandths
    }

    /// The best of `available` for this header, or `fallback` when none matches. Locales are compared without
    /// regard to ASCII case.
    public func preferred(from available: [String], fallback: String = Localizer.baseLocale) -> String {
        guard !ranges.isEmpty else { return fallback }
        for range in ranges {
            if range == "*" { return fallback }
            if let exact = available.firstIndex(where: { Self.equalIgnoringCase($0.utf8, range.utf8) }) {
                return available[exact]
            }
            let language = range.utf8.prefix { $0 != UInt8(ascii: "-") }
            if let match = available.firstIndex(where: { Self.equalIgnoringCase($0.utf8, language) }) {
                return available[match]
            }
        }
        return fallback
    }

    /// Whether a locale's bytes are `range`'s (lower-case ASCII), ASCII's upper case read as lower.
    private static func equalIgnoringCase(_ locale: String.UTF8View, _ range: some Collection<UInt8>) -> Bool {
        guard locale.count == range.count else { return false }
        return zip(locale, range).allSatisfy { byte, expected in
            lowercased(byte) == expected
        }
    }
}
