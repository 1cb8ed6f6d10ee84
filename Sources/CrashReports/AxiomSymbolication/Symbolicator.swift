import CAxiomDwarf
import Synchronization

/// Turns code addresses into functions, files, lines and columns, inlined frames included.
///
/// Locations come from the module's DWARF, from its own file or a separate debug file found by build-id (see
/// ``DebugInfoSearch``). The physical function's name comes from the module's ELF `.symtab` (or `.dynsym`) when a
/// function symbol covers the address, else from DWARF, else from the separate debug file's `.symtab` (which
/// `objcopy --only-keep-debug` keeps: it names `_start` and code built without `-g` in a `--strip-all` binary);
/// a symbol name comes with the offset from the symbol's start. DWARF is read in place from the mapped file, and
/// only what the addresses need: the compile units' address ranges when the module is opened, then, for a unit an
/// address falls in, its line program and its functions' ranges (libdwarf reads files whose debug sections are
/// compressed).
///
/// Everything is cached: a module is opened once and kept (one that cannot be used, with its reason, too); a
/// compile unit's line table and function scopes are built the first time an address falls in it; demangled
/// names and per-address results are kept. Thread-safe: the state sits behind one mutex (the readers and
/// libdwarf are not thread-safe), so concurrent callers serialize, a debuginfod query made while opening a module
/// included (bounded by its timeout). `SymbolicatedCrashReport` asks debuginfod for a report's modules' debug files
/// at once, outside that mutex, before symbolicating them.
/// The debuginfod queries of one symbolicator share a total budget, and once one goes unanswered for its whole
/// timeout, the servers are not asked again (see ``DebugInfoSearch/Debuginfod``).
public final class Symbolicator: Sendable {
    struct State: ~Copyable {
        var modules: [ModuleKey: Result<SymbolicatedModule, SymbolicationError>] = [:]
        var demangler = DemangleCache()
        /// The last module used: consecutive frames of one module skip the dictionary lookup.
        var lastModule: (key: ModuleKey, module: SymbolicatedModule)?

        /// The module of a file, opened on first use and kept; a module that cannot be used is remembered too, so
        /// a slow debuginfod server or a long search is paid once per module, not once per frame.
        mutating func module(
            _ key: ModuleKey, locator: DebugInfoLocator, reader: DWARFReaderChoice, threads: Int = 1
        ) throws(SymbolicationError) -> SymbolicatedModule {
            if let last = lastModule, last.key == key { return last.module }
            let result: Result<SymbolicatedModule, SymbolicationError>
            if let known = modules[key] {
                result = known
            } else {
                do throws(SymbolicationError) {
                    let found = try locator.locate(path: key.path, buildID: key.buildID)
                    result = .success(try SymbolicatedModule(found, reader: reader, threads: threads))
                } catch {
                    result = .failure(error)
                }
                modules[key] = result
            }
            let module = try result.get()
            lastModule = (key, module)
            return module
        }
    }

    /// A module as a crash report names it: its path where it crashed, and the build-id it had then.
    struct ModuleKey: Hashable {
        var path: String
        var buildID: String?
    }

    private let state = Mutex(State())
    private let locator: DebugInfoLocator
    private let reader: DWARFReaderChoice

    /// Creates a symbolicator with empty caches.
    ///
    /// - Parameter search: where to look for debug info a module's file does not carry. The default looks
    ///   locally only (the module's debuglink, `/usr/lib/debug`).
    public init(search: DebugInfoSearch = .local) {
        self.locator = DebugInfoLocator(search: search)
        self.reader = .native
    }

    /// A symbolicator that reads DWARF with `reader` (tests compare the in-place reader with libdwarf).
    init(search: DebugInfoSearch = .local, reader: DWARFReaderChoice) {
        self.locator = DebugInfoLocator(search: search)
        self.reader = reader
    }

    /// Symbolicates a module-relative address.
    ///
    /// - Parameters:
    ///   - modulePath: the ELF file (executable or shared object) the address belongs to, as it was where the
    ///     address was recorded; it may not exist here.
    ///   - buildID: the build-id recorded with the address (lowercase hex), or nil to trust the file at
    ///     `modulePath` as it is. A file with another build-id is never read; debug info is then looked for by
    ///     build-id alone (see ``DebugInfoSearch``).
    ///   - address: an address in the module's virtual address space (runtime pc minus the load bias).
    ///     No "minus one" adjustment is made here: pass a return address already adjusted.
    /// - Returns: the frames at the address, innermost inlined callee first, the physical function last.
    ///   Never empty.
    /// - Throws: ``SymbolicationError``: `.buildIDMismatch` or `.fileNotFound` (with the places looked at) when no
    ///   file with the build-id was found; otherwise when the file is not ELF, is malformed, or has no symbol
    ///   information at all for the address.
    public func symbolicate(
        modulePath: String, buildID: String? = nil, address: UInt64
    ) throws(SymbolicationError) -> [SymbolicatedFrame] {
        let key = ModuleKey(path: modulePath, buildID: buildID)
        return try withState { state throws(SymbolicationError) in
            try state.module(key, locator: locator, reader: reader).symbolicate(address, demangler: &state.demangler)
        }
    }

    /// Where a module's debug info comes from, or why it has none; throws when the module cannot be used at all
    /// (see ``symbolicate(modulePath:buildID:address:)``). Opens the module when not yet open.
    package func debugInfo(modulePath: String, buildID: String?) throws(SymbolicationError) -> ModuleDebugInfo {
        let key = ModuleKey(path: modulePath, buildID: buildID)
        return try withState { state throws(SymbolicationError) in
            try state.module(key, locator: locator, reader: reader).debugInfo
        }
    }

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

    /// Symbolicates a runtime program counter.
    ///
    /// - Parameters:
    ///   - pc: the runtime address.
    ///   - loadBias: the module's load bias (`dlpi_addr`), subtracted from `pc`.
    ///   - modulePath: the ELF file of the module.
    ///   - buildID: the module's build-id when the pc was recorded (see
    ///     ``symbolicate(modulePath:buildID:address:)``), or nil to trust the file as it is.
    ///   - isReturnAddress: true for every frame but the crashing one: a return address points after the
    ///     call, so 1 is subtracted to land inside the call instruction (and the right inlined scope/line).
    public func symbolicate(
        pc: UInt64, loadBias: UInt64, modulePath: String, buildID: String? = nil, isReturnAddress: Bool
    ) throws(SymbolicationError) -> [SymbolicatedFrame] {
        try symbolicate(
            modulePath: modulePath, buildID: buildID,
            address: Self.moduleAddress(pc: pc, loadBias: loadBias, isReturnAddress: isReturnAddress))
    }

    /// The module-relative address a runtime program counter is symbolicated at: a return address points after
    /// its call, so 1 is subtracted to land inside the call instruction (and the right inlined scope and line).
    package static func moduleAddress(pc: UInt64, loadBias: UInt64, isReturnAddress: Bool) -> UInt64 {
        let address = pc &- loadBias
        return isReturnAddress && address > 0 ? address - 1 : address
    }

    /// Fetches from the debuginfod servers, concurrently, the debug files of those of `modules` whose debug info
    /// is not on this machine, so that symbolicating them later waits on no server. Optional: without it each
    /// module's query is made when the module is first used, one module at a time.
    ///
    /// Each module is as for ``symbolicate(modulePath:buildID:address:)``: its path where it ran and the build-id
    /// recorded then (nil: the file's own). Modules already open, with local debug info, or without a build-id are
    /// skipped; the others are asked for at most 4 at a time, each query on a thread of its own, without holding
    /// the symbolicator's lock, and the call returns when all are answered. The run's rules hold (see
    /// ``DebugInfoSearch/Debuginfod``): the queries share the total budget (in wall time: queries running together
    /// count once), and once one goes unanswered for its whole timeout, the queries that start after it do not ask.
    /// Does nothing without debuginfod servers.
    package func prefetchDebugInfo(for modules: [(path: String, buildID: String?)]) {
        guard let servers = locator.search.debuginfod, !servers.urls.isEmpty else { return }
        let unopened =
            (try? withState { state in
                modules.filter { state.modules[ModuleKey(path: $0.path, buildID: $0.buildID)] == nil }
            }) ?? modules
        let buildIDs = unopened.compactMap { locator.buildIDForDebuginfod(path: $0.path, buildID: $0.buildID) }
        locator.debuginfodRun.prefetch(servers, buildIDs: buildIDs)
    }

    /// Reads ahead what symbolicating `addresses` (module-relative, as for
    /// ``symbolicate(modulePath:buildID:address:)``) of one module needs, on the processors this process may run
    /// on: its symbol table, and the DWARF tables of the units the addresses fall in with the names of the functions
    /// covering them, demangled, built at once rather than one after the other. Optional: symbolicating them
    /// afterwards gives the same answers, sooner. A module that cannot be opened is left for `symbolicate` to report.
    package func prepare(modulePath: String, buildID: String? = nil, addresses: [UInt64]) {
        let threads = ParallelWork.threads()
        guard threads > 1 else { return }
        try? withState { state throws(SymbolicationError) in
            let module = try state.module(
                ModuleKey(path: modulePath, buildID: buildID), locator: locator, reader: reader, threads: threads)
            module.prepare(addresses, threads: threads, demangler: &state.demangler)
        }
    }

    /// Opens a module ahead of time (so a later symbolication does not pay for it). Optional.
    package func preload(modulePath: String) throws(SymbolicationError) {
        try withState { state throws(SymbolicationError) in
            _ = try state.module(ModuleKey(path: modulePath, buildID: nil), locator: locator, reader: reader)
        }
    }

    /// The function symbols of a module's symbol table (`.symtab`, else `.dynsym`), sorted by address, one per
    /// address. Meant for tools and tests that sample a module.
    package func functionSymbols(modulePath: String) throws(SymbolicationError) -> [FunctionSymbol] {
        try withState { state throws(SymbolicationError) in
            try state.module(ModuleKey(path: modulePath, buildID: nil), locator: locator, reader: reader)
                .allFunctionSymbols()
        }
    }
}

/// A function symbol of a module's symbol table.
package struct FunctionSymbol: Sendable, Hashable {
    /// The symbol name as stored (mangled for Swift and C++).
    package var name: String
    /// The module-relative start address.
    package var address: UInt64
    /// The size in bytes (0 when the symbol table does not say).
    package var size: UInt64
}
