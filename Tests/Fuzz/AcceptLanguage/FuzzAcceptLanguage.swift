// libFuzzer target: `AcceptLanguage` on any header a peer could send.
//
// Parsing never traps; at most `maximumRanges` ranges survive, each a valid range (`*`, or a letter subtag then
// alphanumeric subtags, lower-cased); the preferred locale is always one of those offered or the fallback; and
// parsing the ranges joined back into a header gives the same ranges (qualities only order them).

import Axiom
@_spi(Fuzzing) import AxiomPresentation
import FuzzSupport

private let offered = ["en", "tr", "de-CH"]

@_cdecl("FuzzAcceptLanguage_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzAcceptLanguage)
}

func fuzzAcceptLanguage(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let header = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let parsed = AcceptLanguage(header)
    check(parsed.ranges.count <= AcceptLanguage.maximumRanges, "too many ranges: \(parsed.ranges.count)")
    for range in parsed.ranges {
        check(range == "*" || range.first?.isLetter == true, "not a range: \(range)")
        check(range == range.lowercased(), "not lower-cased: \(range)")
        check(range.utf8.allSatisfy { $0 < 0x80 }, "not ASCII: \(range)")
    }
    let preferred = parsed.preferred(from: offered, fallback: "en")
    check(offered.contains(preferred), "preferred \(preferred) was not offered")
    let again = AcceptLanguage(parsed.ranges.joined(separator: ", "))
    check(again.ranges == parsed.ranges, "reparsed \(again.ranges) from \(parsed.ranges)")
    return 0
}

/// `precondition` that also prints its message in a release build, so a crash input explains itself.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
