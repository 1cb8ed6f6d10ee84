// libFuzzer target: the log line reader of `axiom symbolicate --log` on any line a log could hold.
//
// Reading never traps; every module's path is absolute and its build-id is `-` or lowercase hex; every frame lies
// within the line, after the one before, and spells its module and offset. On a line of up to 256 bytes, the reader
// finds exactly what its grammar's regular expressions find, as found here the slow way: at the leftmost start,
// the greedy name shortened until the rest matches (Swift's Regex is not the oracle: compiling one leaks memory
// that LeakSanitizer reports).
//
//   module entry  ([^\s,\[\]"():=]+):([0-9a-f]{2,}|-):(/[^\s,\]"]*)
//   frame         ([^\s,\[\]"():=]+)\+0x([0-9a-f]+)

@_spi(Fuzzing) import AxiomCrash
import FuzzSupport

@_cdecl("FuzzLogLine_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzLogLine)
}

func fuzzLogLine(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let utf8 = Array(line.utf8)
    let (modules, frames) = LogLineFuzzing.read(line)
    // Read as bytes: a path may start with a combining mark, which Swift's Characters join to the `/` before it.
    for module in modules {
        let fields = Array(module.utf8).split(separator: UInt8(ascii: " "), maxSplits: 2)
        check(fields.count == 3, "module \(module)")
        let buildID = fields[1]
        check(
            Array(buildID) == Array("-".utf8) || (buildID.count >= 2 && buildID.allSatisfy(isHex)),
            "build-id of \(module)")
        check(fields[2].first == UInt8(ascii: "/"), "path of \(module)")
    }
    var end = 0
    for frame in frames {
        let fields = frame.split(separator: " ")
        let (start, stop) = (Int(fields[fields.count - 2])!, Int(fields[fields.count - 1])!)
        check(end <= start && start < stop && stop <= utf8.count, "frame \(frame) in \(utf8.count) bytes")
        let text = String(decoding: utf8[start..<stop], as: UTF8.self)
        let name = fields.dropLast(3).joined(separator: " ")
        check(utf8[start..<stop].starts(with: Array((name + "+0x").utf8)), "frame \(frame) spells \(text)")
        if fields[fields.count - 3] != "nil" {
            let digits = String(decoding: utf8[(start + name.utf8.count + 3)..<stop], as: UTF8.self)
            check(UInt64(digits, radix: 16) == UInt64(fields[fields.count - 3], radix: 16), "offset of \(frame)")
        }
        end = stop
    }
    guard utf8.count <= 256 else { return 0 }
    let expectedModules = referenceModules(utf8)
    check(modules == expectedModules, "modules \(modules), the grammar's \(expectedModules)")
    let expectedFrames = referenceFrames(utf8)
    check(frames == expectedFrames, "frames \(frames), the grammar's \(expectedFrames)")
    return 0
}

/// `precondition` that also prints its message in a release build, so a crash input explains itself.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

private func isName(_ byte: UInt8) -> Bool { !" \t\n\u{0B}\u{0C}\r,[]\"():=".utf8.contains(byte) }
private func isPath(_ byte: UInt8) -> Bool { !" \t\n\u{0B}\u{0C}\r,]\"".utf8.contains(byte) }
private func isHex(_ byte: UInt8) -> Bool { "0123456789abcdef".utf8.contains(byte) }
private func text(_ bytes: [UInt8], _ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
private func run(_ bytes: [UInt8], from start: Int, _ isIn: (UInt8) -> Bool) -> Int {
    var end = start
    while end < bytes.count && isIn(bytes[end]) { end += 1 }
    return end
}

/// The matches of a pattern that starts with a name, as a backtracking regular expression engine finds them: from
/// the leftmost start, the greedy name shortened until `rest` (given the name's range) matches what follows it; the
/// next search starts where the match ended.
private func leftmostMatches(_ b: [UInt8], rest: (Range<Int>) -> (text: String, end: Int)?) -> [String] {
    var found: [String] = []
    var position = 0
    search: while position < b.count {
        for start in position..<b.count {
            var nameEnd = run(b, from: start, isName)
            while nameEnd > start {
                if let (text, end) = rest(start..<nameEnd) {
                    found.append(text)
                    position = end
                    continue search
                }
                nameEnd -= 1
            }
        }
        break
    }
    return found
}

/// The frames: `+0x` and lowercase hex digits after the name.
private func referenceFrames(_ b: [UInt8]) -> [String] {
    leftmostMatches(b) { name in
        let at = name.upperBound
        guard at + 3 < b.count, b[at] == UInt8(ascii: "+"), b[at + 1] == UInt8(ascii: "0"),
            b[at + 2] == UInt8(ascii: "x"), isHex(b[at + 3])
        else { return nil }
        let end = run(b, from: at + 3, isHex)
        let offset = UInt64(text(b, at + 3..<end), radix: 16).map { String($0, radix: 16) } ?? "nil"
        return ("\(text(b, name)) \(offset) \(name.lowerBound) \(end)", end)
    }
}

/// The module entries: `:`, the build-id's alternatives in order (two or more hex digits, greedy, then `-`), `:` and
/// an absolute path.
private func referenceModules(_ b: [UInt8]) -> [String] {
    leftmostMatches(b) { name in
        let at = name.upperBound
        guard at < b.count, b[at] == UInt8(ascii: ":") else { return nil }
        var candidates: [(id: String, end: Int)] = []
        var idEnd = run(b, from: at + 1, isHex)
        while idEnd - (at + 1) >= 2 {
            candidates.append((text(b, at + 1..<idEnd), idEnd))
            idEnd -= 1
        }
        if at + 1 < b.count, b[at + 1] == UInt8(ascii: "-") { candidates.append(("-", at + 2)) }
        for (id, end) in candidates
        where end + 1 < b.count && b[end] == UInt8(ascii: ":")
            && b[end + 1] == UInt8(ascii: "/")
        {
            let pathEnd = run(b, from: end + 1, isPath)
            return ("\(text(b, name)) \(id) \(text(b, end + 1..<pathEnd))", pathEnd)
        }
        return nil
    }
}
