import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Prints a value as the tool's JSON: pretty, keys sorted (scripts diff it), slashes unescaped (paths).
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Writes one line to standard error (or, with `newline` false, text that stays on the current line).
func printError(_ message: String, newline: Bool = true) {
    var line = newline ? message + "\n" : message
    line.withUTF8 { bytes in
        var rest = UnsafeRawBufferPointer(bytes)
        while !rest.isEmpty {
            let written = write(2, rest.baseAddress, rest.count)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }
}

extension StringProtocol {
    /// The text without the white space at its ends.
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
