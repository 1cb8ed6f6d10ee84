import AxiomCore
import AxiomSymbolication
import Synchronization

// What a logged stack looks like, and where each part comes from:
//
//   CapturedStack.addresses (this process only)
//     │ LoadedModule.containing: module file, load bias; build-id from the module's notes in memory
//     ▼
//   leading frames of the framework (Axiom, AxiomCrash: by mangled name) ──▶ left out
//     ▼
//   symbolicates: "function (file:line)"          lazy: "module+0xoffset"
//                                                    + modules: "module:buildid:path", once per module
//                                                    ──▶ `axiom symbolicate --log` finishes the line later

/// Describes captured stacks for logs: the framework's own frames left out, then each frame either symbolicated
/// (`function (file:line)`) or module-relative (`module+0xoffset`, its module listed once as
/// `module:buildid:path`). Never a bare address.
///
/// Runs when a stack is logged, in the process that captured it (its modules must still be loaded), never when
/// it is captured. The framework's frames are found by symbolicating the leading frames (their mangled names
/// start with an Axiom module's): this works the same in debug and release builds and when the framework is
/// linked statically into the application, where module boundaries say nothing. Leading frames that cannot be
/// named (a module without symbol table or debug info) are kept: a frame too many, never one too few.
///
/// The module-relative form is cheap (no debug info is read past the leading frames) and works for stripped
/// binaries whose debug info lives in a symbol store: `axiom symbolicate --log` finds each module by its build-id
/// (`--symbols DIR`, debug folders, debuginfod) and replaces the frames with functions, files and lines.
@usableFromInline package struct ModuleStackDescriber: StackDescriber {
    /// The modules whose functions are the framework's own: leading frames in them are left out.
    package static let frameworkModules = ["AxiomCore", "Axiom", "AxiomCrash"]

    /// Reads names and lines (for the leading frames always, for every frame when ``symbolicates``).
    package let symbolicator: Symbolicator
    /// Whether frames are symbolicated here (true) or logged module-relative for later (false).
    package let symbolicates: Bool

    /// Creates a describer.
    ///
    /// - Parameters:
    ///   - symbolicator: reads debug info; shares its caches with whoever else uses it. By default one
    ///     process-wide symbolicator that looks locally only.
    ///   - symbolicates: true to log `function (file:line)` frames; false (the default) to log module-relative
    ///     frames with build-ids, finished later by `axiom symbolicate --log`.
    package init(symbolicator: Symbolicator = ModuleStackDescriber.sharedSymbolicator, symbolicates: Bool = false) {
        self.symbolicator = symbolicator
        self.symbolicates = symbolicates
    }

    /// The symbolicator describers use unless given one: local debug info only, caches kept for the process.
    @usableFromInline package static let sharedSymbolicator = Symbolicator()

    package func describe(_ stack: CapturedStack) -> LoggedStack {
        var frames: [String] = []
        var modules: [String] = []
        var listed: Set<String> = []
        var leading = true
        for address in stack.addresses {
            guard let module = LoadedModule.containing(address: address) else {
                // Code outside every module (generated at run time): nothing a log reader could look up.
                leading = false
                frames.append("?")
                continue
            }
            let buildID = Self.buildID(of: module, containing: address)
            var symbols: [SymbolicatedFrame] = []
            if leading || symbolicates {
                symbols =
                    (try? symbolicator.symbolicate(
                        pc: UInt64(address), loadBias: module.loadBias, modulePath: module.path, buildID: buildID,
                        isReturnAddress: true)) ?? []
            }
            if leading {
                if let physical = symbols.last, Self.isFramework(physical) { continue }
                leading = false
                // Framework code inlined into the application's function: the application's frame stays.
                while symbols.count > 1, Self.isFramework(symbols[0]) { symbols.removeFirst() }
            }
            let name = Self.fileName(module.path)
            let relative = name + "+0x" + String(UInt64(address) &- module.loadBias, radix: 16)
            var namesModule = true
            if symbolicates, !symbols.isEmpty {
                namesModule = false
                for symbol in symbols {
                    var text = symbol.isInlined ? "[inlined] " : ""
                    text += symbol.function ?? "?"
                    if let file = symbol.file, let line = symbol.line {
                        text += " (\(file):\(line))"
                    } else {
                        // No line: the offset still lets a later symbolication with more debug info find it.
                        text += " (\(relative))"
                        namesModule = true
                    }
                    frames.append(text)
                }
            } else {
                frames.append(relative)
            }
            if namesModule, listed.insert(module.path).inserted {
                modules.append(name + ":" + (buildID ?? "-") + ":" + module.path)
            }
        }
        return LoggedStack(frames: frames, modules: modules)
    }

    /// Whether a symbolicated frame is a function of the framework (its own, a specialization of a generic one,
    /// one of its closures or async partial functions): by the module in its mangled name.
    static func isFramework(_ frame: SymbolicatedFrame) -> Bool {
        if let mangled = frame.mangledName ?? frame.function, mangled.hasPrefix("$s") {
            return frameworkPrefixes.contains { mangled.hasPrefix($0) }
        }
        guard let function = frame.function else { return false }
        return frameworkModules.contains { function.hasPrefix($0 + ".") }
    }

    /// `$s5Axiom`, `$s10AxiomCrash`: how a Swift mangled name starts for an entity of these modules.
    static let frameworkPrefixes = frameworkModules.map { "$s\($0.utf8.count)\($0)" }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Build-ids by module path and load bias: read once per module from its notes in memory.
    private static let buildIDs = Mutex<[String: String?]>([:])

    static func buildID(of module: LoadedModule, containing address: UInt) -> String? {
        let key = module.path + "@" + String(module.loadBias, radix: 16)
        if let known = buildIDs.withTrackedLock({ $0[key] }) { return known }
        let found = LoadedModule.buildID(containing: address)
        buildIDs.withTrackedLock { $0[key] = found }
        return found
    }
}
