import AxiomCore
import AxiomSymbolication
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
    writeAll(STDERR_FILENO, newline ? message + "\n" : message)
}

extension StringProtocol {
    /// The text without the white space at its ends.
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}

/// While a command asks debuginfod servers for debug info, shows how far it has got on standard error when that is
/// a terminal (`axiom: debuginfod: 3 of 8 answered, asking for 1a2b3c4d…`); shows nothing otherwise. Returns what
/// clears the line, to call once the command is done.
func showDebuginfodProgress() -> () -> Void {
    guard isatty(2) == 1 else { return {} }
    DebuginfodProgress.observer.withLock { observer in
        observer = { event in
            let state = event.answered ? "" : ", asking for \(event.buildID.prefix(12))…"
            printError(
                "\r\u{1B}[Kaxiom: debuginfod: \(event.answers) of \(event.asked) answered\(state)", newline: false)
        }
    }
    return {
        DebuginfodProgress.observer.withLock { $0 = nil }
        printError("\r\u{1B}[K", newline: false)
    }
}
