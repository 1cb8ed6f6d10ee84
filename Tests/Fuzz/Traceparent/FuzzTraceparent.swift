// libFuzzer target: the reader of W3C `traceparent` values and of hex trace ids, which every traced request's ids
// go through (`TraceIdentifiers`, and the crash reporter's announcement of the request's span).
//
// Reading never traps, and it agrees with the grammar read the slow way: the value split at every `-` into at
// least four fields, the second 32 ASCII hex digits and the third 16, neither all zeros; the ids given lower-cased,
// and as words equal to the digits' value. A hex id is read exactly when it is 16 or 32 ASCII hex digits.

@_spi(Fuzzing) import AxiomTracing
import FuzzSupport

@_cdecl("FuzzTraceparent_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzTraceparent)
}

func fuzzTraceparent(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let fields = Array(value.utf8).split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
    var expected: (String, String)?
    if fields.count >= 4, fields[1].count == 32, fields[2].count == 16, fields[1].allSatisfy(isHex),
        fields[2].allSatisfy(isHex), fields[1].contains(where: { $0 != UInt8(ascii: "0") }),
        fields[2].contains(where: { $0 != UInt8(ascii: "0") })
    {
        expected = (lowercased(fields[1]), lowercased(fields[2]))
    }
    let ids = TraceparentFuzzing.ids(traceparent: value)
    check(ids?.traceID == expected?.0 && ids?.spanID == expected?.1, "read \(String(describing: ids)) from \(value)")
    let words = TraceparentFuzzing.words(traceparent: value)
    check((words == nil) == (ids == nil), "words \(String(describing: words)) but ids \(String(describing: ids))")
    if let ids, let words {
        check(hex(words.traceID.0) + hex(words.traceID.1) == ids.traceID, "trace words \(words.traceID) of \(value)")
        check(hex(words.spanID) == ids.spanID, "span word \(words.spanID) of \(value)")
    }

    // The input as a hex id of either length.
    for digits in [1, 2] {
        let read = TraceparentFuzzing.words(hex: value, count: digits)
        let isId = value.utf8.count == 16 * digits && value.utf8.allSatisfy(isHex)
        check((read != nil) == isId, "\(digits) words \(String(describing: read)) from \(value)")
        if let read {
            let low = UInt64(String(value.suffix(16)), radix: 16)
            let high = digits == 2 ? UInt64(String(value.prefix(16)), radix: 16) : 0
            check(read.1 == low && read.0 == high, "\(digits) words \(read) from \(value)")
        }
    }
    return 0
}

private func isHex(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
}

private func lowercased(_ digits: ArraySlice<UInt8>) -> String {
    String(decoding: digits.map { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}

/// `word` as 16 lower-case hex digits.
private func hex(_ word: UInt64) -> String {
    let digits = String(word, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}

/// `precondition` that also prints its message in a release build, so a crash input explains itself.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
