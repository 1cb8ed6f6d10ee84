import Foundation
import Testing

@testable import AxiomSymbolication

/// `axiom symbolicate --binary --json` writes each answer itself; scripts read it as the JSON `JSONEncoder` wrote
/// before (keys sorted, slashes unescaped), so the two must give the same bytes for every frame.
@Suite("An answer's JSON line is what JSONEncoder writes")
struct AnswerLineTests {
    private struct Line: Encodable {
        var address: String
        var frames: [SymbolicatedFrame]
        var error: String?
    }

    private func encoded(_ address: String, _ frames: [SymbolicatedFrame], _ error: String?) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(Line(address: address, frames: frames, error: error))
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    @Test func everyFieldAndEveryCharacterIsWrittenAsTheEncoderWritesIt() throws {
        // Every ASCII character (controls, quote, backslash, slash, DEL), and others past ASCII.
        let every = String(String.UnicodeScalarView((0..<0x80).map { Unicode.Scalar(UInt8($0)) }))
        let wide = "é \u{2028}\u{2029} 😀 \u{80}\u{9f} 東京"
        let full = SymbolicatedFrame(
            function: "f(\(every))", mangledName: "$s1f\(wide)", symbolOffset: UInt64.max, file: "/src/\(every).swift",
            line: Int.max, column: 1, isInlined: false)
        let bare = SymbolicatedFrame()
        let inlined = SymbolicatedFrame(function: wide, file: "a/b.c", line: 7, isInlined: true)
        let negative = SymbolicatedFrame(line: -1, column: Int.min)
        let cases: [(String, [SymbolicatedFrame], String?)] = [
            ("0x1", [], nil),
            ("0x2", [], "no symbol for 0x2 in /bin/\"x\"\n(\(every))"),
            ("0x3", [bare], nil),
            ("0x4", [inlined, full], nil),
            ("0x\(every)", [negative, inlined, bare, full], wide),
        ]
        for (address, frames, error) in cases {
            #expect(
                AnswerLine.json(address: address, frames: frames, error: error) == (try encoded(address, frames, error))
            )
        }
    }
}
