import CAxiomDwarf
import Synchronization

/// Turns code addresses into functions, files, lines and columns, inlined frames included.
///
/// Names and locations come from the module's DWARF (read with libdwarf); where DWARF does not cover an
/// address, from the ELF `.symtab` (or `.dynsym`): the nearest preceding function symbol, with an offset.
///
/// Everything is cached: a module is opened once and kept; a compile unit's line table and function
/// scopes are built the first time an address falls in it; demangled names and per-address results are
/// kept. Thread-safe: the state sits behind one mutex (libdwarf itself is not thread-safe), so concurrent
/// callers serialize.
public final class Symbolicator: Sendable {
    struct State: ~Copyable {
        var modules: [String: SymbolicatedModule] = [:]
        var demangler = DemangleCache()
        /// The last module used: consecutive frames of one module skip the dictionary lookup.
        var lastModule: SymbolicatedModule?

        /// The module of a file, opened on first use and kept.
        mutating func module(_ path: String) throws(SymbolicationError) -> SymbolicatedModule {
            if let last = lastModule, last.path == path { return last }
            let module: SymbolicatedModule
            if let known = modules[path] {
                module = known
            } else {
                module = try SymbolicatedModule(path: path)
                modules[path] = module
            }
            lastModule = module
            return module
        }
    }

    private let state = Mutex(State())

    /// Creates a symbolicator with empty caches.
    public init() {}

    /// Runs `body` with the state locked, and tells ThreadSanitizer so (see `axiom_tsan_acquire`).
    private func withState<R: Sendable>(
        _ body: (inout State) throws(SymbolicationError) -> R
    ) throws(SymbolicationError) -> R {
        try state.withLock { (state: inout State) throws(SymbolicationError) -> R in
            let lock = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
            axiom_tsan_acquire(lock)
            defer { axiom_tsan_release(lock) }
            return try body(&state)
        }
    }

    /// Symbolicates a module-relative address.
    ///
    /// - Parameters:
    ///   - modulePath: the ELF file (executable or shared object) the address belongs to.
    ///   - address: an address in the file's virtual address space (runtime pc minus the load bias).
    ///     No "minus one" adjustment is made here: pass a return address already adjusted.
    /// - Returns: the frames at the address, innermost inlined callee first, the physical function last.
    ///   Never empty.
    /// - Throws: ``SymbolicationError`` when the file is missing, not ELF, malformed, or has no symbol
    ///   information at all for the address.
    public func symbolicate(modulePath: String, address: UInt64) throws(SymbolicationError) -> [SymbolicatedFrame] {
        try withState { state throws(SymbolicationError) in
            try state.module(modulePath).symbolicate(address, demangler: &state.demangler)
        }
    }

    /// Symbolicates a runtime program counter.
    ///
    /// - Parameters:
    ///   - pc: the runtime address.
    ///   - loadBias: the module's load bias (`dlpi_addr`), subtracted from `pc`.
    ///   - modulePath: the ELF file of the module.
    ///   - isReturnAddress: true for every frame but the crashing one: a return address points after the
    ///     call, so 1 is subtracted to land inside the call instruction (and the right inlined scope/line).
    public func symbolicate(
        pc: UInt64, loadBias: UInt64, modulePath: String, isReturnAddress: Bool
    ) throws(SymbolicationError) -> [SymbolicatedFrame] {
        var address = pc &- loadBias
        if isReturnAddress && address > 0 { address -= 1 }
        return try symbolicate(modulePath: modulePath, address: address)
    }

    /// Opens a module ahead of time (so a later symbolication does not pay for it). Optional.
    public func preload(modulePath: String) throws(SymbolicationError) {
        try withState { state throws(SymbolicationError) in
            _ = try state.module(modulePath)
        }
    }

    /// The function symbols of a module's symbol table (`.symtab`, else `.dynsym`), sorted by address, one per
    /// address. Meant for tools and tests that sample a module.
    public func functionSymbols(modulePath: String) throws(SymbolicationError) -> [FunctionSymbol] {
        try withState { state throws(SymbolicationError) in
            try state.module(modulePath).allFunctionSymbols()
        }
    }
}

/// A function symbol of a module's symbol table.
public struct FunctionSymbol: Sendable, Hashable {
    /// The symbol name as stored (mangled for Swift and C++).
    public var name: String
    /// The module-relative start address.
    public var address: UInt64
    /// The size in bytes (0 when the symbol table does not say).
    public var size: UInt64
}
