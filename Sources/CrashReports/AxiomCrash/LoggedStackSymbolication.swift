import AxiomSymbolication

/// Finishes log lines whose stacks were logged module-relative (see `ModuleStackDescriber`): each
/// `module+0xoffset` frame of a module the same line lists (`module:buildid:path`) becomes its functions, files
/// and lines.
///
/// ```
/// … stack=[MyApp+0x1a2f3,libswift_Concurrency.so+0x4c1d0] stackModules=[MyApp:5f3e…:/srv/myapp/MyApp,…]
/// … stack=[MyApp.Ledger.append() (/src/Ledger.swift:42),…] stackModules=[…]
/// ```
///
/// Each module is found by its build-id, as crash reports are (see ``DebugInfoSearch``): its file when that still
/// has the build-id, its debuglink, debug folders, symbol stores, debuginfod. A frame that cannot be symbolicated
/// (no module with that build-id anywhere) stays as it was. Works on any machine that has the debug info.
package struct LoggedStackSymbolication: Sendable {
    /// Reads the debug info.
    package let symbolicator: Symbolicator

    /// Creates a finisher reading debug info through `symbolicator`.
    package init(symbolicator: Symbolicator) {
        self.symbolicator = symbolicator
    }

    /// A module a log line lists.
    package struct Module: Sendable, Hashable {
        /// The module's file name, as its frames name it.
        package var name: String
        /// Its GNU build-id (lowercase hex), or nil when it had none.
        package var buildID: String?
        /// Its path where it ran.
        package var path: String
    }

    /// The modules listed in `line` (`module:buildid:path` entries).
    package func modules(in line: String) -> [Module] {
        var line = line
        return line.withUTF8 { LogLineScanner($0).modules() }
    }

    /// The module-relative frames of `line` (`module+0xoffset`), in order: each one's module name, its offset (nil
    /// when it does not fit 64 bits) and where it is in the line's UTF-8.
    package func frames(in line: String) -> [LoggedFrame] {
        var line = line
        return line.withUTF8 { LogLineScanner($0).frames() }
    }

    /// A module-relative frame as a log line spells it.
    package struct LoggedFrame: Sendable, Hashable {
        /// The module's file name.
        package var module: String
        /// The offset in the module, or nil when its digits do not fit 64 bits.
        package var offset: UInt64?
        /// Where the frame is in the line's UTF-8 bytes.
        package var range: Range<Int>
    }

    /// `line` with every module-relative frame of a listed module replaced by its symbolicated frames
    /// (`function (file:line)`, `[inlined] ` in front of inlined ones, joined by `, `).
    package func symbolicate(line: String) -> String {
        var copy = line
        let finished = copy.withUTF8 { bytes -> String? in
            var result: [UInt8] = []
            var copied = 0
            for (frame, module, offset) in Self.listedFrames(LogLineScanner(bytes)) {
                guard let frames = symbolicate(module, offset: offset) else { continue }
                if result.isEmpty { result.reserveCapacity(bytes.count * 4) }
                result.append(contentsOf: bytes[copied..<frame.range.lowerBound])
                result.append(contentsOf: frames.utf8)
                copied = frame.range.upperBound
            }
            guard copied > 0 else { return nil }
            result.append(contentsOf: bytes[copied...])
            return String(decoding: result, as: UTF8.self)
        }
        // A line with nothing to finish is the line itself, not a copy.
        return finished ?? line
    }

    /// Reads ahead what finishing `lines` will need, module by module (`Symbolicator.prepare`): the tables of a
    /// module's units are then built on every processor at once, rather than one after the other as the lines ask
    /// for them. Changes no answer; ``symbolicate(line:)`` finishes each line as it would have.
    package func prepare(lines: some Sequence<String>) {
        var byModule: [Module: [UInt64]] = [:]
        for var line in lines {
            line.withUTF8 { bytes in
                for (_, module, offset) in Self.listedFrames(LogLineScanner(bytes)) {
                    guard let address = Self.address(ofOffset: offset) else { continue }
                    byModule[module, default: []].append(address)
                }
            }
        }
        for (module, addresses) in byModule where addresses.count > 1 {
            symbolicator.prepare(modulePath: module.path, buildID: module.buildID, addresses: addresses)
        }
    }

    /// The frames of a line whose module the same line lists, each with that module (the first entry of its name)
    /// and its offset; a frame whose offset does not fit 64 bits is left out.
    private static func listedFrames(_ scanner: LogLineScanner) -> [(LoggedFrame, Module, UInt64)] {
        let modules = scanner.modules()
        guard !modules.isEmpty else { return [] }
        var byName: [String: Module] = [:]
        for module in modules where byName[module.name] == nil { byName[module.name] = module }
        return scanner.frames().compactMap { frame in
            guard let module = byName[frame.module], let offset = frame.offset else { return nil }
            return (frame, module, offset)
        }
    }

    /// The address a logged offset is looked up at: one byte back, since return addresses point after their call
    /// (an async caller's resume point was logged plus one for the same reason).
    static func address(ofOffset offset: UInt64) -> UInt64? { offset > 0 ? offset - 1 : nil }

    /// One module-relative frame, symbolicated, or nil when its module's debug info is nowhere to be found.
    func symbolicate(_ module: Module, offset: UInt64) -> String? {
        guard let address = Self.address(ofOffset: offset),
            let frames = try? symbolicator.symbolicate(
                modulePath: module.path, buildID: module.buildID, address: address),
            frames.contains(where: { $0.function != nil })
        else { return nil }
        return frames.map { frame in
            var text = frame.isInlined ? "[inlined] " : ""
            text += frame.function ?? "?"
            if let file = frame.file, let line = frame.line { text += " (\(file):\(line))" }
            return text
        }.joined(separator: ", ")
    }
}

/// Reads the two forms a logged stack takes in a line, in one pass over its UTF-8 bytes, with no regular expression
/// (a log of thousands of lines is read in milliseconds):
///
/// - a module entry, `name:buildid:path`: a name, a build-id of at least two lowercase hex digits or `-`, and an
///   absolute path, which runs to the next whitespace, `,`, `]` or `"`;
/// - a frame, `name+0xoffset`, offset in lowercase hex.
///
/// A name is a run of bytes that are none of ASCII whitespace and `,[]"():=` (so `+` may be in it: the frame is the
/// last `+0x` of its run followed by a digit). Matches do not overlap, and each is the leftmost left after the one
/// before, as a regular expression's matches are.
struct LogLineScanner {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Every module entry, in order.
    func modules() -> [LoggedStackSymbolication.Module] {
        var modules: [LoggedStackSymbolication.Module] = []
        var at = 0
        while at < bytes.count {
            guard Self.isNameByte(bytes[at]) else {
                at += 1
                continue
            }
            let nameEnd = runEnd(from: at, while: Self.isNameByte)
            guard nameEnd < bytes.count, bytes[nameEnd] == UInt8(ascii: ":") else {
                at = nameEnd
                continue
            }
            // A failed entry may hold the start of the next: its build-id is a name as well.
            guard let (buildID, buildIDEnd) = buildID(at: nameEnd + 1),
                buildIDEnd + 1 < bytes.count, bytes[buildIDEnd] == UInt8(ascii: ":"),
                bytes[buildIDEnd + 1] == UInt8(ascii: "/")
            else {
                at = nameEnd + 1
                continue
            }
            let pathEnd = runEnd(from: buildIDEnd + 1, while: Self.isPathByte)
            modules.append(
                LoggedStackSymbolication.Module(
                    name: text(at..<nameEnd), buildID: buildID, path: text(buildIDEnd + 1..<pathEnd)))
            at = pathEnd
        }
        return modules
    }

    /// Every frame, in order.
    func frames() -> [LoggedStackSymbolication.LoggedFrame] {
        var frames: [LoggedStackSymbolication.LoggedFrame] = []
        var at = 0
        while at < bytes.count {
            guard Self.isNameByte(bytes[at]) else {
                at += 1
                continue
            }
            let end = runEnd(from: at, while: Self.isNameByte)
            // The last `+0x` and digit of the run after at least one byte of name.
            var plus = end - 4
            while plus > at && !isOffsetStart(plus) { plus -= 1 }
            if plus > at {
                let digitsEnd = runEnd(from: plus + 3, while: Self.isHexDigit)
                frames.append(
                    LoggedStackSymbolication.LoggedFrame(
                        module: text(at..<plus), offset: Self.hexValue(bytes[plus + 3..<digitsEnd]),
                        range: at..<digitsEnd))
            }
            at = end
        }
        return frames
    }

    /// `-`, or at least two lowercase hex digits, at `start`: the build-id (nil for `-`) and where it ends.
    private func buildID(at start: Int) -> (String?, Int)? {
        guard start < bytes.count else { return nil }
        if bytes[start] == UInt8(ascii: "-") { return (nil, start + 1) }
        let end = runEnd(from: start, while: Self.isHexDigit)
        return end - start >= 2 ? (text(start..<end), end) : nil
    }

    private func isOffsetStart(_ index: Int) -> Bool {
        index + 3 < bytes.count && bytes[index] == UInt8(ascii: "+") && bytes[index + 1] == UInt8(ascii: "0")
            && bytes[index + 2] == UInt8(ascii: "x") && Self.isHexDigit(bytes[index + 3])
    }

    private func runEnd(from start: Int, while isIn: (UInt8) -> Bool) -> Int {
        var end = start
        while end < bytes.count && isIn(bytes[end]) { end += 1 }
        return end
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09...0x0D, 0x20, UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ":"), UInt8(ascii: "="):
            false
        default: true
        }
    }

    private static func isPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09...0x0D, 0x20, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "\""): false
        default: true
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// The value of lowercase hex digits, or nil when it does not fit 64 bits.
    private static func hexValue(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            guard value >> 60 == 0 else { return nil }
            value =
                value << 4
                | UInt64(digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10)
        }
        return value
    }
}

/// The log line reader of `axiom symbolicate --log` on any line, for the fuzz target (`Tests/Fuzz/LogLine`): not part
/// of the API.
@_spi(Fuzzing) public enum LogLineFuzzing {
    /// The module entries the reader finds in `line`, each as `name buildid path` (`-` for no build-id), and its
    /// frames, each as `name offset start end` (the offset in lowercase hex or `nil`, the frame's UTF-8 range).
    @_spi(Fuzzing) public static func read(_ line: String) -> (modules: [String], frames: [String]) {
        var line = line
        return line.withUTF8 { bytes in
            let scanner = LogLineScanner(bytes)
            return (
                scanner.modules().map { "\($0.name) \($0.buildID ?? "-") \($0.path)" },
                scanner.frames().map { frame in
                    let offset = frame.offset.map { String($0, radix: 16) } ?? "nil"
                    return "\(frame.module) \(offset) \(frame.range.lowerBound) \(frame.range.upperBound)"
                }
            )
        }
    }
}
