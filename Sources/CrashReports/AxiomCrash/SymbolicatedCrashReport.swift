import AxiomCore
import AxiomSymbolication

#if canImport(Glibc)
import Glibc
#endif

/// A raw crash report with its frames turned into functions, files and lines.
///
/// A module is identified by the build-id recorded at crash time: its debug info comes from its file
/// when that still has the build-id, else from a debug file with the build-id (see `DebugInfoSearch`).
/// Frames of a module with neither keep their module and offset and say why they have no symbol,
/// rather than being named wrongly.
public struct SymbolicatedCrashReport: Sendable, Hashable {
    /// The report as the signal handler wrote it.
    package var raw: RawCrashReport
    /// The crashed thread's frames, innermost first; an address in inlined code gives
    /// several frames (innermost inlined callee first, the physical function last).
    public var frames: [Frame]
    /// The operating system, as `/etc/os-release` names it where the report was processed.
    public var platform: String
    /// Paths of modules whose file here does not have the build-id recorded at crash time
    /// (rebuilt, replaced or absent); the file is not read.
    package var changedModules: Set<String>
    /// Per module path (of the modules frames fell in): where its debug info came from, or
    /// why it could not be used at all.
    package var debugInfo: [String: Result<ModuleDebugInfo, SymbolicationError>]
    /// The other threads, symbolicated like the crashed one, in the raw report's order.
    public var otherThreads: [Thread]

    /// A thread that did not crash.
    public struct Thread: Sendable, Hashable {
        public var tid: Int32
        public var name: String
        /// Innermost first, inlined frames expanded; empty when the thread did not answer.
        public var frames: [Frame]
        /// The thread gave its stack in time.
        public var answered: Bool
        /// Frames deeper than the report kept.
        public var omittedFrames: Int
    }

    /// One frame of the crashed thread.
    public struct Frame: Sendable, Hashable {
        /// How the address was obtained: the faulting pc, or a return address.
        public typealias Kind = NamedCase<SymbolicatedCrashReport.Frame>

        public var kind: Kind
        /// Position of the captured address in `raw.frames`; inlined frames share
        /// their physical frame's.
        public var index: Int
        /// The run-time address, as captured (return addresses not adjusted).
        public var address: UInt64
        /// True for frames that exist only because of inlining.
        public var isInlined: Bool
        /// The linkage (mangled) name, or the plain name when it has no other.
        public var symbol: String?
        /// The demangled function name.
        public var function: String?
        /// Offset of the address from the start of the function (physical frames only).
        public var offset: UInt64?
        /// File name of the module the address lies in.
        public var image: String?
        /// The address in the module's file (run-time address minus the load bias), when the
        /// module is known: with the module's build-id, enough to symbolicate later.
        public var imageOffset: UInt64?
        /// Why the frame has no function name, when it has none.
        public var unsymbolicatedReason: String?
        public var file: String?
        public var line: Int?
        public var column: Int?

        /// A frame the compiler made for a runtime check (`Swift runtime failure: …`), as the Swift backtracer
        /// marks it.
        package var isRuntimeFailure: Bool { function?.hasPrefix("Swift runtime failure") == true }

        /// A compiler-made thunk (reabstraction, partial application, dispatch): not the application's code.
        package var isThunk: Bool {
            guard let function else { return false }
            return function.contains(" thunk ") || function.hasPrefix("thunk ") || function.hasSuffix(" thunk")
                || function.hasPrefix("partial apply forwarder") || function.hasPrefix("@objc ")
        }

        /// In a library of the system or of the Swift runtime (libc, libswiftCore, …), not the application.
        package var isSystem: Bool { imagePath.map(SymbolicatedCrashReport.isSystemPath) ?? false }

        /// The full path of the module the address lies in.
        package var imagePath: String?

        /// `function + offset`, as the Swift backtracer writes it.
        public var description: String? {
            guard let function else { return nil }
            guard let offset else { return function }
            return "\(function) + \(offset)"
        }
    }

    /// Symbolicates `raw` with `symbolicator`. The debug files of the report's modules that have frames and no
    /// debug info on this machine are first fetched from the symbolicator's debuginfod servers, if it has any, all
    /// at once (``Symbolicator/prefetchDebugInfo(for:)``).
    package init(raw: RawCrashReport, symbolicator: Symbolicator, platform: String = Self.currentPlatform()) {
        self.raw = raw
        self.platform = platform
        let addresses =
            raw.frames + raw.otherThreads.flatMap(\.frames) + raw.asyncChains.flatMap(\.resumePoints)
        let modules = raw.modules.filter { module in addresses.contains { module.contains($0) } }
        symbolicator.prefetchDebugInfo(
            for: modules.map { (path: $0.path, buildID: $0.buildID.isEmpty ? nil : $0.buildIDHex) })
        Self.prepare(raw, symbolicator)
        var state = SymbolicationState(raw: raw, symbolicator: symbolicator)
        self.frames = Self.withAsyncCallers(state.frames(raw.frames), raw: raw, state: &state)
        self.otherThreads = raw.otherThreads.map { thread in
            Thread(
                tid: thread.tid, name: thread.name, frames: state.frames(thread.frames), answered: thread.answered,
                omittedFrames: thread.omittedFrames)
        }
        self.changedModules = Set(state.buildIDMatches.filter { !$0.value }.keys)
        self.debugInfo = state.debugInfo
    }

    /// Reads ahead, module by module, what the report's frames will need (`Symbolicator.prepare`): the tables of a
    /// module's units are then built on every processor at once rather than one after the other.
    private static func prepare(_ raw: RawCrashReport, _ symbolicator: Symbolicator) {
        var byModule: [String: (buildID: String?, addresses: [UInt64])] = [:]
        func add(_ pcs: [UInt64], firstIsProgramCounter: Bool) {
            for (position, pc) in pcs.enumerated() {
                guard let module = raw.module(containing: pc) else { continue }
                let address = Symbolicator.moduleAddress(
                    pc: pc, loadBias: module.bias, isReturnAddress: position > 0 || !firstIsProgramCounter)
                byModule[module.path, default: (module.buildID.isEmpty ? nil : module.buildIDHex, [])].addresses
                    .append(address)
            }
        }
        add(raw.frames, firstIsProgramCounter: true)
        for thread in raw.otherThreads { add(thread.frames, firstIsProgramCounter: true) }
        for chain in raw.asyncChains { add(chain.resumePoints, firstIsProgramCounter: false) }
        for (path, module) in byModule.sorted(by: { $0.key < $1.key }) where module.addresses.count > 1 {
            symbolicator.prepare(modulePath: path, buildID: module.buildID, addresses: module.addresses)
        }
    }

    /// Inserts, after the first frame whose function is a Swift async function and which has an async chain, the
    /// async callers of that function, as `asyncResumePoint` frames (their `index` counts on past the captured
    /// frames). The executor's frames that follow stay, after them.
    private static func withAsyncCallers(
        _ frames: [Frame], raw: RawCrashReport, state: inout SymbolicationState
    ) -> [Frame] {
        for chain in raw.asyncChains {
            guard
                let position = frames.lastIndex(where: { $0.index == chain.frameIndex }),
                frames[position].function.map(isAsyncFunction) == true
            else { continue }
            var callers = state.frames(chain.resumePoints, kind: .asyncResumePoint, firstIndex: raw.frames.count)
            callers = callers.filter { $0.function.map(isAsyncFunction) ?? true }
            return Array(frames[...position]) + callers + frames[(position + 1)...]
        }
        return frames
    }

    /// A demangled Swift async function or one of its partial functions (`… async -> …`, `… async throws -> …`).
    static func isAsyncFunction(_ function: String) -> Bool {
        function.contains(") async ") || function.hasSuffix(") async")
    }

    /// The fatal message when the runtime left one, else what the signal means.
    public var summary: String { raw.fatalMessage ?? crashDescription }

    /// Whether a module path is the system's or the Swift runtime's: `/lib`, `/usr/lib` and the toolchain's
    /// `…/lib/swift/…` libraries, and the vDSO.
    static func isSystemPath(_ path: String) -> Bool {
        path.hasPrefix("/lib/") || path.hasPrefix("/lib64/") || path.hasPrefix("/usr/lib/")
            || path.contains("/lib/swift/linux/") || path.hasPrefix("linux-vdso")
    }

    /// What went wrong, in the Swift backtracer's words for the signal.
    public var crashDescription: String {
        switch raw.signal {
        case SIGSEGV: return "Bad pointer dereference"
        case SIGBUS: return "Bus error"
        case SIGILL: return "Illegal instruction"
        case SIGFPE: return "Arithmetic error"
        case SIGABRT: return "Aborted"
        case SIGTRAP: return "Trace/breakpoint trap"
        default: return "Signal \(raw.signal)"
        }
    }

    /// `Linux (PRETTY_NAME from /etc/os-release)`.
    package static func currentPlatform() -> String {
        guard let bytes = try? RawCrashReport.readFile("/etc/os-release") else { return "Linux" }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        where line.hasPrefix("PRETTY_NAME=") {
            let value = line.dropFirst("PRETTY_NAME=".count).trimmingQuotes()
            return "Linux (\(value))"
        }
        return "Linux"
    }
}

/// What symbolicating one report's threads shares: per module, whether its file still has the build-id, and
/// where its debug info is.
private struct SymbolicationState {
    let raw: RawCrashReport
    let symbolicator: Symbolicator
    var buildIDMatches: [String: Bool] = [:]
    var debugInfo: [String: Result<ModuleDebugInfo, SymbolicationError>] = [:]

    init(raw: RawCrashReport, symbolicator: Symbolicator) {
        self.raw = raw
        self.symbolicator = symbolicator
    }

    /// One thread's addresses (its pc first) as frames, inlined frames expanded. With a `kind`, every address is
    /// of that kind (async resume points, looked up one byte back like return addresses), numbered from
    /// `firstIndex`.
    mutating func frames(
        _ addresses: [UInt64], kind fixedKind: SymbolicatedCrashReport.Frame.Kind? = nil, firstIndex: Int = 0
    ) -> [SymbolicatedCrashReport.Frame] {
        var frames: [SymbolicatedCrashReport.Frame] = []
        for (position, pc) in addresses.enumerated() {
            let index = firstIndex + position
            let kind: SymbolicatedCrashReport.Frame.Kind =
                fixedKind ?? (position == 0 ? .programCounter : .returnAddress)
            var frame = SymbolicatedCrashReport.Frame(kind: kind, index: index, address: pc, isInlined: false)
            guard let module = raw.module(containing: pc) else {
                frame.unsymbolicatedReason = "the address lies in no module the report lists"
                frames.append(frame)
                continue
            }
            frame.image = module.name
            frame.imagePath = module.path
            frame.imageOffset = pc &- module.bias
            if buildIDMatches[module.path] == nil {
                buildIDMatches[module.path] =
                    module.buildID.isEmpty || elfBuildID(path: module.path) == module.buildIDHex
            }
            let buildID = module.buildID.isEmpty ? nil : module.buildIDHex
            if debugInfo[module.path] == nil {
                do throws(SymbolicationError) {
                    debugInfo[module.path] = .success(
                        try symbolicator.debugInfo(modulePath: module.path, buildID: buildID))
                } catch {
                    debugInfo[module.path] = .failure(error)
                }
            }
            do throws(SymbolicationError) {
                let symbolicated = try symbolicator.symbolicate(
                    pc: pc, loadBias: module.bias, modulePath: module.path, buildID: buildID,
                    isReturnAddress: kind != .programCounter)
                frames += frame.expanded(by: symbolicated)
            } catch {
                frame.unsymbolicatedReason = error.message
                frames.append(frame)
            }
        }
        return frames
    }
}

extension Substring {
    fileprivate func trimmingQuotes() -> Substring {
        var value = self
        if value.first == "\"" { value = value.dropFirst() }
        if value.last == "\"" { value = value.dropLast() }
        return value
    }
}

extension SymbolicatedCrashReport.Frame {
    /// This frame once per symbolicated location, in the symbolicator's order: inlined callees first, the
    /// physical function last.
    func expanded(by locations: [SymbolicatedFrame]) -> [Self] {
        locations.map { location in
            var frame = self
            frame.isInlined = location.isInlined
            frame.symbol = location.mangledName ?? location.function
            frame.function = location.function
            frame.offset = location.symbolOffset
            frame.file = location.file
            frame.line = location.line
            frame.column = location.column
            return frame
        }
    }
}

extension NamedCase where Owner == SymbolicatedCrashReport.Frame {
    public static var programCounter: Self { Self(name: "programCounter") }
    public static var returnAddress: Self { Self(name: "returnAddress") }
    /// Where an async function's caller resumes when it returns (the async caller chain).
    public static var asyncResumePoint: Self { Self(name: "asyncResumePoint") }
}
