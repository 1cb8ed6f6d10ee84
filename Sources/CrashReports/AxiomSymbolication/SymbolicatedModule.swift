/// One opened module: its ELF image (symbol tables), its DWARF (when present), the separate debug file's symbol
/// table, and the per-address results already computed. Lives inside the ``Symbolicator``'s mutex; never shared
/// outside it.
final class SymbolicatedModule {
    /// The file whose symbol table names functions first (the module's, or its debug file's when the module is
    /// absent or rebuilt).
    let path: String
    let debugInfo: ModuleDebugInfo
    private let image: ELFImage
    private let dwarf: (any DebugInfoReader)?
    /// The separate debug file, when it is not `image`: its `.symtab` names the functions `image`'s symbols do not
    /// cover and DWARF does not name (`_start`, code compiled without `-g`).
    private let debugImage: ELFImage?
    /// The symbol table's functions, sorted by address: read on first use (or by ``prepare(_:threads:)``).
    private var sortedSymbols: [ELFImage.Symbol]?
    private var functionSymbols: [ELFImage.Symbol] {
        if let sortedSymbols { return sortedSymbols }
        let symbols = image.functionSymbols()
        sortedSymbols = symbols
        return symbols
    }
    private lazy var debugFunctionSymbols = debugImage?.functionSymbols() ?? []
    private var results: [UInt64: [SymbolicatedFrame]] = [:]
    /// Bounds the per-address cache; beyond it the cache starts over (addresses in crash reports repeat a lot,
    /// so a simple reset is enough).
    static let resultCacheLimit = 1 << 16

    /// Where the module's code lies (its executable sections), or nil when it has no section headers.
    private let code: [Range<UInt64>]?

    /// Opens the module `found` names. With `threads` above 1 (a batch is about to be read ahead), the symbol table
    /// is sorted on a second thread while the DWARF units are indexed on this one.
    init(
        _ found: DebugInfoLocator.Found, reader: DWARFReaderChoice = .native, threads: Int = 1
    ) throws(SymbolicationError) {
        self.path = found.symbols.path
        self.image = found.symbols
        self.debugInfo = found.info
        if let debug = found.debug {
            // DWARF is read in place from the file the search mapped and checked; libdwarf reads what that reader
            // leaves to it (compressed debug sections).
            let native: NativeDWARFReader?
            if reader == .native {
                (native, sortedSymbols) = Self.indexSideBySide(debug, sorting: found.symbols, threads: threads)
            } else {
                native = nil
            }
            if let native {
                self.dwarf = native
            } else {
                self.dwarf = try DwarfReader(path: debug.path)
            }
            self.debugImage = debug === found.symbols ? nil : debug
        } else {
            self.dwarf = nil
            self.debugImage = nil
        }
        let shfExecInstr: UInt64 = 0x4
        let executable = image.sections.filter { $0.flags & shfExecInstr != 0 && $0.size > 0 }
        // address + size comes from the file: a sum past the top of the address space ends there.
        self.code =
            image.sections.isEmpty
            ? nil
            : executable.map { section in
                let (end, overflow) = section.address.addingReportingOverflow(section.size)
                return section.address..<(overflow ? UInt64.max : end)
            }
    }

    /// The native reader of `debug` (its units indexed) and, with `threads` above 1, `image`'s function symbols,
    /// sorted, made at the same time: each only reads its mapped file.
    private static func indexSideBySide(
        _ debug: ELFImage, sorting image: ELFImage, threads: Int
    ) -> (NativeDWARFReader?, [ELFImage.Symbol]?) {
        guard threads > 1 else { return (NativeDWARFReader(image: debug), nil) }
        enum Piece { case reader, symbols }
        /// @unchecked: the reader is made on one thread and not touched there again; `ParallelWork.map` hands
        /// the results to this thread once every worker is done.
        enum Made: @unchecked Sendable {
            case reader(NativeDWARFReader?)
            case symbols([ELFImage.Symbol])
        }
        var native: NativeDWARFReader?
        var symbols: [ELFImage.Symbol]?
        for made in ParallelWork.map(
            [Piece.reader, .symbols], threads: 2,
            { piece -> Made in
                switch piece {
                case .reader: .reader(NativeDWARFReader(image: debug))
                case .symbols: .symbols(image.functionSymbols())
                }
            })
        {
            switch made {
            case .reader(let reader): native = reader
            case .symbols(let sorted): symbols = sorted
            }
        }
        return (native, symbols)
    }

    /// Whether a return address can lie in this module's code. Linkers that drop unused functions (gold
    /// with `--gc-sections`, as in release builds) leave their DWARF behind with addresses rebased to 0,
    /// so DWARF alone would name a discarded function for an address near 0. No code lies outside the
    /// executable sections, so DWARF is not asked about such addresses.
    private func mayBeCode(_ address: UInt64) -> Bool {
        guard let code else { return true }
        return code.contains { $0.contains(address) }
    }

    var hasDebugInfo: Bool { dwarf != nil }

    /// Reads ahead, on up to `threads` threads, what symbolicating `addresses` will need: the symbol table, sorted,
    /// beside each unit the addresses fall in (its DWARF tables, the names of the scopes covering them, demangled),
    /// then the demangled names of the symbols covering them. Symbolicating them afterwards gives the same answers,
    /// sooner: what is left is looking up what these built.
    func prepare(_ addresses: [UInt64], threads: Int, demangler: inout DemangleCache) {
        let wanted = addresses.filter { results[$0] == nil && mayBeCode($0) }
        guard threads > 1, !wanted.isEmpty else { return }
        let native = dwarf as? NativeDWARFReader
        enum Piece {
            case symbols
            case unit(NativeDWARFReader.TableJob)
        }
        enum Done {
            case symbols([ELFImage.Symbol])
            case unit(NativeDWARFReader.BuiltUnit)
        }
        /// Builds the symbol table (when not built yet) and the jobs' units on `threads` threads, and keeps them.
        func readAhead(_ jobs: [NativeDWARFReader.TableJob]) {
            let pieces = (sortedSymbols == nil ? [Piece.symbols] : []) + jobs.map(Piece.unit)
            guard pieces.count > 1 else { return }
            // The symbols read only the module's file, each unit only its own bytes: nothing one piece writes is
            // read by another, and each result is kept by this thread once all are done.
            let image = self.image
            let done = ParallelWork.map(pieces, threads: threads) { piece -> Done in
                switch piece {
                case .symbols: .symbols(image.functionSymbols())
                case .unit(let job): .unit(NativeDWARFReader.build(job))
                }
            }
            var built = jobs.makeIterator()
            for result in done {
                switch result {
                case .symbols(let symbols): sortedSymbols = symbols
                case .unit(let unit):
                    guard let job = built.next() else { continue }
                    native?.store(unit, for: job)
                    for entry in unit.demangled { demangler.keep(entry.demangled, for: entry.name) }
                }
            }
        }
        // An address in no unit's ranges has its unit looked for among the units whose DIE gives none, which are
        // then all read: first, on every thread, rather than one after another while the jobs are found.
        native?.readUnindexedUnits(forAddresses: wanted, threads: threads)
        // The name of the symbol covering each address lets a unit's job read only the functions the addresses fall
        // in, through the module's name index. The symbols are at hand when the module was opened for a batch
        // (sorted beside its unit index); else the units are walked, rather than sorting the table on this thread.
        let image = self.image
        let symbols = sortedSymbols
        readAhead(
            native?.tableJobs(forAddresses: wanted) { address in
                guard let symbols, let symbol = Self.symbol(in: symbols, containing: address) else { return nil }
                return image.string(at: symbol.nameOffset)
            } ?? [])
        // The names of the symbols covering the addresses: most are linkage names the units' jobs demangled; the
        // others are demangled here, on the same threads.
        var names: [String] = []
        var seen: Set<String> = []
        for address in wanted {
            guard let symbol = Self.symbol(in: functionSymbols, containing: address),
                let name = image.string(at: symbol.nameOffset), !demangler.contains(name), seen.insert(name).inserted
            else { continue }
            names.append(name)
        }
        guard names.count > 1 else { return }
        let demangled = ParallelWork.map(names, threads: threads) { Demangler.demangle($0) }
        for (name, result) in zip(names, demangled) { demangler.keep(result, for: name) }
    }

    func symbolicate(
        _ address: UInt64, demangler: inout DemangleCache
    ) throws(SymbolicationError)
        -> [SymbolicatedFrame]
    {
        if let cached = results[address] { return cached }
        var frames = mayBeCode(address) ? dwarfFrames(address, demangler: &demangler) : []
        nameFunction(at: address, frames: &frames, demangler: &demangler)
        guard !frames.isEmpty else { throw .noSymbol(path, address: address, hasDebugInfo: hasDebugInfo) }
        if results.count >= Self.resultCacheLimit { results.removeAll(keepingCapacity: true) }
        results[address] = frames
        return frames
    }

    /// Names the physical frame (the last of `frames`, added when DWARF gave none), the one place a function's
    /// name is chosen. In order:
    ///
    /// 1. the symbol of `image`'s table covering the address: it overrides DWARF's name, as `llvm-symbolizer`
    ///    does, since DWARF linkage names can be internal aliases (glibc's `__GI_abort` for `abort`);
    /// 2. the DWARF subprogram's name;
    /// 3. the symbol of the debug file's table covering the address: `objcopy --only-keep-debug` keeps `.symtab`,
    ///    which names what a `--strip-all` binary's tables and DWARF do not (`_start`, code built without `-g`).
    ///    The debug file is the one the search checked by build-id, so a wrong file's symbols are never used.
    private func nameFunction(at address: UInt64, frames: inout [SymbolicatedFrame], demangler: inout DemangleCache) {
        let file: ELFImage
        let symbol: ELFImage.Symbol
        if let own = Self.symbol(in: functionSymbols, containing: address) {
            (file, symbol) = (image, own)
        } else if frames.last?.function != nil {
            return
        } else if let debugImage, let fromDebugFile = Self.symbol(in: debugFunctionSymbols, containing: address) {
            (file, symbol) = (debugImage, fromDebugFile)
        } else {
            return
        }
        guard let name = file.string(at: symbol.nameOffset) else { return }
        let demangled = demangler.demangle(name)
        if frames.isEmpty { frames.append(SymbolicatedFrame(isInlined: false)) }
        frames[frames.count - 1].function = demangled
        frames[frames.count - 1].mangledName = demangled == name ? nil : name
        frames[frames.count - 1].symbolOffset = address - symbol.address
    }

    /// Nearest FUNC symbol of `symbols` (sorted by address) at or before `address`; a sized symbol must contain it.
    private static func symbol(in symbols: [ELFImage.Symbol], containing address: UInt64) -> ELFImage.Symbol? {
        let count = symbols.countStarting(atOrBefore: address, \.address)
        guard count > 0 else { return nil }
        let symbol = symbols[count - 1]
        if symbol.size != 0 && address - symbol.address >= symbol.size { return nil }
        return symbol
    }

    /// The names of every FUNC symbol, for tests that sample a module.
    func allFunctionSymbols() -> [FunctionSymbol] {
        functionSymbols.compactMap { symbol in
            image.string(at: symbol.nameOffset).map {
                FunctionSymbol(name: $0, address: symbol.address, size: symbol.size)
            }
        }
    }

    private func dwarfFrames(_ address: UInt64, demangler: inout DemangleCache) -> [SymbolicatedFrame] {
        guard let dwarf else { return [] }
        for unit in dwarf.units(containing: address) {
            let chain = dwarf.scopeChain(unit: unit, address: address)
            guard let table = dwarf.table(forUnit: unit) else { continue }
            let row = table.row(for: address)
            if chain.isEmpty && row == nil { continue }
            var frames: [SymbolicatedFrame] = []
            frames.reserveCapacity(max(chain.count, 1))
            // Location of the innermost frame comes from the line table; each outer frame's location is the
            // call site recorded on the inlined scope just inside it.
            var file = row.flatMap { table.file(number: $0.file) }
            var line = row.map { Int($0.line) }
            var column = row.map { Int($0.column) }
            if chain.isEmpty {
                frames.append(
                    SymbolicatedFrame(file: file, line: nonZero(line), column: nonZero(column), isInlined: false))
                return frames
            }
            for position in stride(from: chain.count - 1, through: 0, by: -1) {
                let scope = table.scopes[Int(chain[position])]
                let names = dwarf.names(ofDieAt: scope.dieOffset)
                var function: String? = nil
                var mangledName: String? = nil
                if let linkageName = names.linkageName {
                    function = demangler.demangle(linkageName)
                    mangledName = function == linkageName ? nil : linkageName
                } else {
                    function = names.name
                }
                frames.append(
                    SymbolicatedFrame(
                        function: function, mangledName: mangledName,
                        symbolOffset: scope.isInlined || address < scope.entryAddress
                            ? nil : address - scope.entryAddress, file: file,
                        line: nonZero(line), column: nonZero(column), isInlined: scope.isInlined))
                file = table.file(number: scope.callFile)
                line = Int(scope.callLine)
                column = Int(scope.callColumn)
            }
            return frames
        }
        return []
    }

    private func nonZero(_ value: Int?) -> Int? {
        guard let value, value != 0 else { return nil }
        return value
    }
}

/// Which reader a module's DWARF is read with: in place (the default), or libdwarf (tests compare the two).
enum DWARFReaderChoice: Sendable {
    case native
    case libdwarf
}

/// Demangled names by linkage name. `swift_demangle` costs about a microsecond; a name repeats across frames.
struct DemangleCache {
    private var names: [String: String] = [:]

    mutating func demangle(_ name: String) -> String {
        if let cached = names[name] { return cached }
        let demangled = Demangler.demangle(name)
        keep(demangled, for: name)
        return demangled
    }

    /// Whether the demangled form of `name` is kept.
    func contains(_ name: String) -> Bool { names[name] != nil }

    /// Keeps the demangled form of `name`, found elsewhere (on another thread).
    mutating func keep(_ demangled: String, for name: String) {
        if names.count >= 1 << 16 { names.removeAll(keepingCapacity: true) }
        names[name] = demangled
    }
}
