/// One symbolicated frame.
///
/// For an address inside inlined code, ``Symbolicator/symbolicate(modulePath:buildID:address:)`` returns several
/// frames: the innermost inlined callee first, the physical (concrete) function last. Only the physical
/// frame has `isInlined == false` and a `symbolOffset`.
public struct SymbolicatedFrame: Sendable, Hashable, Codable {
    /// The function name, demangled (Swift through `swift_demangle`, C++ through `__cxa_demangle`, C as is).
    public var function: String?
    /// The linkage (mangled) name, when it differs from `function`.
    public var mangledName: String?
    /// `address - function start`, for the physical frame only.
    public var symbolOffset: UInt64?
    /// The source file, as a full path when DWARF gives one (the compile directory joined).
    public var file: String?
    /// The 1-based source line, when known.
    public var line: Int?
    /// The 1-based source column, when known (DWARF uses 0 for "no column": reported as nil).
    public var column: Int?
    /// True for frames that exist only because of inlining.
    public var isInlined: Bool

    /// Creates a frame; every field but `isInlined` is optional.
    package init(
        function: String? = nil, mangledName: String? = nil, symbolOffset: UInt64? = nil, file: String? = nil,
        line: Int? = nil, column: Int? = nil, isInlined: Bool = false
    ) {
        self.function = function
        self.mangledName = mangledName
        self.symbolOffset = symbolOffset
        self.file = file
        self.line = line
        self.column = column
        self.isInlined = isInlined
    }
}

/// One address's answer as the JSON line `axiom symbolicate --binary --json` prints: `{"address":…,"error":…,
/// "frames":[…]}`, the bytes `JSONEncoder` writes for it with sorted keys and slashes unescaped (a test holds the two
/// to the same bytes), written directly: the encoder took about 25 µs a line, a sixth of a whole batch's time.
package enum AnswerLine {
    /// The line, ending in a newline. `error` is the symbolication error's text, when the address has none.
    package static func json(address: String, frames: [SymbolicatedFrame], error: String?) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + frames.count * 256)
        bytes += #"{"address":"#.utf8
        appendString(address, to: &bytes)
        if let error {
            bytes += #","error":"#.utf8
            appendString(error, to: &bytes)
        }
        bytes += #","frames":["#.utf8
        for (index, frame) in frames.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            // The frame's keys in sorted order; absent values are left out, as `encodeIfPresent` leaves them.
            var separator = UInt8(ascii: "{")
            func key(_ name: String) {
                bytes.append(separator)
                separator = UInt8(ascii: ",")
                appendString(name, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
            }
            func string(_ name: String, _ value: String?) {
                guard let value else { return }
                key(name)
                appendString(value, to: &bytes)
            }
            func literal(_ name: String, _ value: String?) {
                guard let value else { return }
                key(name)
                bytes += value.utf8
            }
            literal("column", frame.column.map { String($0) })
            string("file", frame.file)
            string("function", frame.function)
            literal("isInlined", frame.isInlined ? "true" : "false")
            literal("line", frame.line.map { String($0) })
            string("mangledName", frame.mangledName)
            literal("symbolOffset", frame.symbolOffset.map { String($0) })
            bytes.append(UInt8(ascii: "}"))
        }
        bytes += "]}\n".utf8
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string as `JSONEncoder` writes one: `"` and `\` escaped, the control characters as `\b`, `\t`, `\n`,
    /// `\f`, `\r` or `\u00xx`, everything else (`/`, DEL, non-ASCII) as it is.
    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += #"\""#.utf8
            case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
            case 0x08: bytes += #"\b"#.utf8
            case 0x09: bytes += #"\t"#.utf8
            case 0x0a: bytes += #"\n"#.utf8
            case 0x0c: bytes += #"\f"#.utf8
            case 0x0d: bytes += #"\r"#.utf8
            case 0..<0x20: bytes += [0x5c, 0x75, 0x30, 0x30, hexDigit(byte >> 4), hexDigit(byte & 0xf)]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The lowercase hexadecimal digit of a value below 16, computed rather than looked up in a table that would be
    /// allocated on every call.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}
