/// Why an ELF file cannot be read: the reader's one set of failure words. Each caller turns them into its own
/// error in one place (the plugin host into a `PluginRejection` reason, the symbolicator into a
/// `SymbolicationError`).
package enum ELFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not start with the ELF magic (or is shorter than it).
    case notELF
    /// The file ends inside the ELF header: it has `size` bytes.
    case truncated(size: Int)
    /// Not ELF64: the class byte of the header (1 is ELF32).
    case unsupportedClass(UInt8)
    /// Not little-endian: the data encoding byte of the header (2 is big-endian).
    case unsupportedByteOrder(UInt8)
    /// A header points outside the file or does not add up; the detail says which.
    case malformed(String)

    /// What is wrong, in words that need no context but the file's name.
    package var description: String {
        switch self {
        case .notELF: "no ELF magic at the start of the file"
        case .truncated(let size): "the ELF header is cut short (\(size) bytes)"
        case .unsupportedClass(let value): value == 1 ? "32-bit ELF" : "ELF class \(value)"
        case .unsupportedByteOrder(let value): value == 2 ? "big-endian ELF" : "ELF data encoding \(value)"
        case .malformed(let detail): detail
        }
    }
}
