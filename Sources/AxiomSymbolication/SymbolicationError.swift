/// Why an address or a module could not be symbolicated.
///
/// A module without DWARF is not an error: its `.symtab`/`.dynsym` is used instead. The error is thrown
/// only when neither covers the address, or when the file cannot be used at all.
public struct SymbolicationError: Error, Sendable, CustomStringConvertible, Hashable {
    /// The closed set of reasons.
    public enum Code: Sendable, Hashable {
        /// The module file does not exist.
        case fileNotFound
        /// The module file exists but cannot be opened or read (permissions, a directory, …).
        case unreadableFile
        /// The file is not an ELF file.
        case notELF
        /// The ELF file is of a class or byte order this reader does not handle (only 64-bit little-endian).
        case unsupportedELF
        /// The ELF headers point outside the file: a truncated or corrupt file.
        case malformedELF
        /// Neither DWARF nor the symbol tables cover the address.
        case noSymbolInformation
        /// libdwarf reported an error; the message carries libdwarf's text.
        case dwarfError
        /// The module file's build-id differs from the one recorded at crash time (rebuilt or replaced since),
        /// and no debug file with the recorded build-id was found: its lines would be wrong, so it is not read.
        case buildIDMismatch
    }

    /// The reason.
    public let code: Code
    /// The module the error is about.
    public let modulePath: String
    /// A human readable explanation, with details such as the libdwarf error text.
    public let message: String

    /// Creates an error.
    public init(code: Code, modulePath: String, message: String) {
        self.code = code
        self.modulePath = modulePath
        self.message = message
    }

    public var description: String {
        "SymbolicationError(\(code)): \(modulePath): \(message)"
    }

    static func fileNotFound(_ path: String) -> Self {
        Self(code: .fileNotFound, modulePath: path, message: "no such file")
    }

    static func unreadable(_ path: String, _ reason: String) -> Self {
        Self(code: .unreadableFile, modulePath: path, message: "cannot read the file: \(reason)")
    }

    static func notELF(_ path: String) -> Self {
        Self(code: .notELF, modulePath: path, message: "not an ELF file (bad magic)")
    }

    static func unsupportedELF(_ path: String, _ reason: String) -> Self {
        Self(code: .unsupportedELF, modulePath: path, message: "unsupported ELF file: \(reason)")
    }

    static func malformedELF(_ path: String, _ reason: String) -> Self {
        Self(code: .malformedELF, modulePath: path, message: "truncated or malformed ELF file: \(reason)")
    }

    static func noSymbol(_ path: String, address: UInt64, hasDebugInfo: Bool) -> Self {
        let hex = "0x" + String(address, radix: 16)
        let detail =
            hasDebugInfo
            ? "neither DWARF nor the symbol tables cover address \(hex)"
            : "no debug info, and no symbol table entry covers address \(hex)"
        return Self(code: .noSymbolInformation, modulePath: path, message: detail)
    }

    static func buildIDMismatch(_ path: String, file: String?, report: String) -> Self {
        Self(
            code: .buildIDMismatch, modulePath: path,
            message:
                "build-id differs: the file has \(file ?? "none"), the report \(report) (rebuilt or replaced since the crash)"
        )
    }

    static func dwarf(_ path: String, _ what: String, _ text: String) -> Self {
        Self(code: .dwarfError, modulePath: path, message: "libdwarf: \(what): \(text)")
    }
}
