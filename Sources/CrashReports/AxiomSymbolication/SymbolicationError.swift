import AxiomCatalog

/// Why an address or a module could not be symbolicated.
///
/// A module without DWARF is not an error: its `.symtab`/`.dynsym` is used instead. The error is thrown
/// only when neither covers the address, or when the file cannot be used at all.
///
/// Shaped like the framework's other errors: a ``code`` to match, factory functions that record where it was
/// thrown (``throwSite``), and the identity `axiom.symbolication/<code>`. This module does not depend on the
/// core, so the type is not `IdentifiableError` itself: `CrashErrorDomains.register(in:)` (in `AxiomCrash`)
/// teaches a registry its identity.
public struct SymbolicationError: Error, Sendable, CustomStringConvertible, Hashable {
    /// Why it failed: what to match on.
    public typealias Code = NamedCase<SymbolicationError>

    private let facts: ErrorFacts<SymbolicationError>
    /// The module the error is about.
    public let modulePath: String
    /// What a search for the module's debug file added to the reason (the places it looked), or empty.
    private let searched: String
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public var throwSite: ThrowSite { facts.throwSite }

    private init(_ code: Code, _ reason: String, modulePath: String, searched: String = "", file: String, line: UInt) {
        self.facts = ErrorFacts(code, reason, file: file, line: line)
        self.modulePath = modulePath
        self.searched = searched
    }

    /// Why it failed.
    public var code: Code { facts.code }

    /// A human readable explanation, with details such as the libdwarf error text.
    public var message: String { facts.text + searched }

    public var description: String {
        "SymbolicationError(\(code)): \(modulePath): \(message)"
    }

    /// The module file does not exist.
    package static func fileNotFound(_ path: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.fileNotFound, "no such file", modulePath: path, file: file, line: line)
    }

    /// The module file exists but cannot be opened or read.
    package static func unreadable(_ path: String, _ reason: String, file: String = #fileID, line: UInt = #line) -> Self
    {
        Self(.unreadableFile, "cannot read the file: \(reason)", modulePath: path, file: file, line: line)
    }

    /// The file is not an ELF file.
    package static func notELF(_ path: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.notELF, "not an ELF file (bad magic)", modulePath: path, file: file, line: line)
    }

    /// The ELF file is of a class or byte order this reader does not handle.
    package static func unsupportedELF(
        _ path: String, _ reason: String, file: String = #fileID, line: UInt = #line
    )
        -> Self
    {
        Self(.unsupportedELF, "unsupported ELF file: \(reason)", modulePath: path, file: file, line: line)
    }

    /// The ELF headers point outside the file.
    package static func malformedELF(
        _ path: String, _ reason: String, file: String = #fileID, line: UInt = #line
    )
        -> Self
    {
        Self(.malformedELF, "truncated or malformed ELF file: \(reason)", modulePath: path, file: file, line: line)
    }

    /// Neither DWARF nor the symbol tables cover `address`.
    package static func noSymbol(
        _ path: String, address: UInt64, hasDebugInfo: Bool, file: String = #fileID, line: UInt = #line
    ) -> Self {
        let hex = "0x" + String(address, radix: 16)
        let reason =
            hasDebugInfo
            ? "neither DWARF nor the symbol tables cover address \(hex)"
            : "no debug info, and no symbol table entry covers address \(hex)"
        return Self(.noSymbolInformation, reason, modulePath: path, file: file, line: line)
    }

    /// The module file's build-id (`fileBuildID`, nil when it has none) differs from the report's.
    package static func buildIDMismatch(
        _ path: String, fileBuildID: String?, report: String, file: String = #fileID, line: UInt = #line
    ) -> Self {
        let reason =
            "build-id differs: the file has \(fileBuildID ?? "none"), the report \(report) (rebuilt or replaced since the crash)"
        return Self(.buildIDMismatch, reason, modulePath: path, file: file, line: line)
    }

    /// libdwarf failed at `what` with `text`.
    package static func dwarf(
        _ path: String, _ what: String, _ text: String, file: String = #fileID, line: UInt = #line
    )
        -> Self
    {
        Self(.dwarfError, "libdwarf: \(what): \(text)", modulePath: path, file: file, line: line)
    }

    /// The same failure about `path`, with `searched` added to its message, thrown from the caller.
    func searched(_ searched: String, path: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code, facts.text, modulePath: path, searched: self.searched + searched, file: file, line: line)
    }
}

extension NamedCase where Owner == SymbolicationError {
    /// The module file does not exist.
    public static var fileNotFound: Self { Self(name: "fileNotFound") }
    /// The module file exists but cannot be opened or read (permissions, a directory, …).
    public static var unreadableFile: Self { Self(name: "unreadableFile") }
    /// The file is not an ELF file.
    public static var notELF: Self { Self(name: "notELF") }
    /// The ELF file is of a class or byte order this reader does not handle (only 64-bit little-endian).
    public static var unsupportedELF: Self { Self(name: "unsupportedELF") }
    /// The ELF headers point outside the file: a truncated or corrupt file.
    public static var malformedELF: Self { Self(name: "malformedELF") }
    /// Neither DWARF nor the symbol tables cover the address.
    public static var noSymbolInformation: Self { Self(name: "noSymbolInformation") }
    /// libdwarf reported an error; the message carries libdwarf's text.
    public static var dwarfError: Self { Self(name: "dwarfError") }
    /// The module file's build-id differs from the one recorded at crash time (rebuilt or replaced since),
    /// and no debug file with the recorded build-id was found: its lines would be wrong, so it is not read.
    public static var buildIDMismatch: Self { Self(name: "buildIDMismatch") }
    /// Every code, in declaration order.
    package static var all: [Self] {
        [
            .fileNotFound, .unreadableFile, .notELF, .unsupportedELF, .malformedELF, .noSymbolInformation, .dwarfError,
            .buildIDMismatch,
        ]
    }
}
