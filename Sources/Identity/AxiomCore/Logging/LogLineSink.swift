import Glibc

/// Writes lines to standard error or standard output.
///
/// One `write(2)` per line, unbuffered: lines from concurrent loggers do not interleave, and a line
/// written just before a crash is not lost in a buffer.
package struct StandardStreamSink: Sendable {
    private let useStandardOutput: Bool

    /// Standard error, where diagnostics belong.
    package static let standardError = StandardStreamSink(useStandardOutput: false)
    /// Standard output.
    package static let standardOutput = StandardStreamSink(useStandardOutput: true)

    private init(useStandardOutput: Bool) { self.useStandardOutput = useStandardOutput }

    /// Writes `line` and a line break.
    package func write(_ line: String) {
        var line = line + "\n"
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(
                    useStandardOutput ? STDOUT_FILENO : STDERR_FILENO, bytes.baseAddress! + offset,
                    bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
