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
