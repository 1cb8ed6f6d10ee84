import CAxiomDwarf
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the ``Symbolicator`` looks for a module's debug info (DWARF) when it is not in the module's own file.
///
/// A module is identified by its GNU build-id. Its debug info is taken from the first of these places that
/// holds a file with the same build-id, the way gdb, `llvm-symbolizer` and Debian's toolchain look:
///
/// 1. the module's file itself, when it carries DWARF;
/// 2. the file its `.gnu_debuglink` names (with the CRC-32 it records): beside the module, in a `.debug/`
///    folder beside it, then `ROOT/<folder of the module>/` for each of `debugRoots`;
/// 3. `ROOT/.build-id/xx/rest.debug` for each of `debugRoots` (`xx`: the first two hex digits of the
///    build-id, `rest`: the others);
/// 4. `STORE/.build-id/xx/rest.debug` for each of `symbolStores`: the same layout, in folders a deployment
///    pipeline fills (`axiom symbols add`);
/// 5. the `debuginfod` servers, when given.
///
/// A module file whose build-id differs from the one recorded at crash time (rebuilt or replaced since) is
/// never read: its lines would be wrong. Steps 3 to 5 need only the build-id, so a report from another
/// machine, whose module paths do not exist here, is symbolicated from them.
public struct DebugInfoSearch: Sendable, Hashable {
    /// Global debug folders (gdb's `debug-file-directory`). Default: `/usr/lib/debug`.
    package var debugRoots: [String]
    /// Symbol store folders, laid out by build-id like a debug root's `.build-id` folder.
    package var symbolStores: [String]
    /// The debuginfod servers to ask last, or nil to ask none.
    package var debuginfod: Debuginfod?

    /// Creates a search; by default the system's `/usr/lib/debug`, no symbol store and no debuginfod server.
    ///
    /// - Parameters:
    ///   - debugRoots: global debug folders (gdb's `debug-file-directory`). Default: `/usr/lib/debug`.
    ///   - symbolStores: symbol store folders, laid out by build-id like a debug root's `.build-id` folder.
    ///   - debuginfod: the debuginfod servers to ask last, or nil to ask none.
    public init(debugRoots: [String] = ["/usr/lib/debug"], symbolStores: [String] = [], debuginfod: Debuginfod? = nil) {
        self.debugRoots = debugRoots
        self.symbolStores = symbolStores
        self.debuginfod = debuginfod
    }

    /// Local files only: the module, its debuglink and `/usr/lib/debug`. What `Symbolicator()` uses: a process
    /// symbolicating its own crash reports at start-up should not wait on the network.
    public static let local = DebugInfoSearch()

    /// The debuginfod servers to ask, through libdebuginfod.
    ///
    /// libdebuginfod reads its servers, cache folder and timeout from the environment only
    /// (`DEBUGINFOD_URLS`, `DEBUGINFOD_CACHE_PATH`, `DEBUGINFOD_TIMEOUT`), so a query sets those variables of
    /// this process to the values given here (a value equal to the current one is not written again). Queries with
    /// the same servers, cache and timeout run at the same time; one with other values waits until those running
    /// end. A report's modules are asked for at most four at a time.
    /// Downloaded files are kept in the cache folder, by build-id; so is, for 10 minutes
    /// (libdebuginfod's `cache_miss_s`), the fact that no server gave a build-id, a timeout included: a query for
    /// it then answers "not found" at once.
    public struct Debuginfod: Sendable, Hashable {
        /// Server base URLs, e.g. `https://debuginfod.debian.net`.
        package var urls: [String]
        /// The client's cache folder; nil keeps `DEBUGINFOD_CACHE_PATH` (default `~/.cache/debuginfod_client`).
        package var cachePath: String?
        /// How long one module's query may take in all, whole seconds (at least 1). A module's answer, found or
        /// not, is kept; and once a query has gone unanswered for this long, one ``Symbolicator`` asks the servers
        /// nothing more: the modules asked for after it say the servers did not answer earlier in this run (those
        /// asked at the same time wait their own timeout, alongside it). So servers that are down or never answer
        /// cost at most this once per symbolicator, not once per module.
        package var timeoutSeconds: Int
        /// How long one ``Symbolicator``'s queries may take together, whole seconds (at least 1): the bound on the
        /// debuginfod waits of one report (or one run of `axiom symbolicate`/`crash-reports`), in wall time:
        /// queries that run at the same time count once. A query gets the smaller of `timeoutSeconds` and what is
        /// left of this; once less than a second is left, the remaining modules are not asked, and say so.
        package var totalTimeoutSeconds: Int

        /// Creates a server list.
        ///
        /// - Parameters:
        ///   - urls: server base URLs, e.g. `https://debuginfod.debian.net`.
        ///   - cachePath: the client's cache folder; nil keeps `DEBUGINFOD_CACHE_PATH` (default
        ///     `~/.cache/debuginfod_client`).
        ///   - timeoutSeconds: how long one module's query may take in all, whole seconds (at least 1). A module's
        ///     answer, found or not, is kept; and once a query has gone unanswered for this long, one ``Symbolicator``
        ///     asks the servers nothing more: the modules asked for after it say the servers did not answer earlier in
        ///     this run (those asked at the same time wait their own timeout, alongside it). So servers that are down or
        ///     never answer cost at most this once per symbolicator, not once per module.
        ///   - totalTimeoutSeconds: how long one ``Symbolicator``'s queries may take together, whole seconds (at least
        ///     1): the bound on the debuginfod waits of one report (or one run of `axiom symbolicate`/`crash-reports`),
        ///     in wall time: queries that run at the same time count once. A query gets the smaller of `timeoutSeconds`
        ///     and what is left of this; once less than a second is left, the remaining modules are not asked, and say
        ///     so.
        public init(urls: [String], cachePath: String? = nil, timeoutSeconds: Int = 10, totalTimeoutSeconds: Int = 30) {
            self.urls = urls
            self.cachePath = cachePath
            self.timeoutSeconds = max(1, timeoutSeconds)
            self.totalTimeoutSeconds = max(1, totalTimeoutSeconds)
        }

        /// The servers of `DEBUGINFOD_URLS` (space-separated) with `DEBUGINFOD_TIMEOUT` (seconds, default 10),
        /// or nil when `DEBUGINFOD_URLS` is unset or empty.
        public static func fromEnvironment() -> Debuginfod? {
            let urls = environment("DEBUGINFOD_URLS")?.split(separator: " ").map(String.init) ?? []
            guard !urls.isEmpty else { return nil }
            let timeout = environment("DEBUGINFOD_TIMEOUT").flatMap { Int($0) } ?? 10
            return Debuginfod(urls: urls, timeoutSeconds: timeout)
        }

        private static func environment(_ name: String) -> String? {
            getenv(name).map { String(cString: $0) }
        }
    }
}

/// Where a module's debug info came from, or why it has none.
package struct ModuleDebugInfo: Sendable, Hashable {
    /// The place a debug file was found (see ``DebugInfoSearch``).
    package enum Source: String, Sendable, Hashable {
        /// The module's own file.
        case binary
        /// The file named by the module's `.gnu_debuglink`.
        case debugLink
        /// A debug root's `.build-id` folder.
        case buildIDDirectory
        /// A symbol store folder.
        case symbolStore
        /// A debuginfod server (the file is in the client's cache).
        case debuginfod
    }

    /// Where the DWARF was found; nil when none was, and names come from the symbol tables only.
    package var source: Source?
    /// The file the DWARF is read from.
    package var debugFile: String?
    /// The file whose symbol table names functions first: the module's own, or the debug file when the module's
    /// file is absent or rebuilt. A function it has no symbol for, and DWARF does not name, is named by the debug
    /// file's symbol table (``debugFile``).
    package var symbolFile: String
    /// Why there is no DWARF, with the places looked at; nil when there is.
    package var missingReason: String?
}

/// Finds a module's files: the one to read symbols from and the one to read DWARF from.
struct DebugInfoLocator {
    struct Found {
        /// The file whose symbol table names functions first, and whose section layout is used.
        var symbols: ELFImage
        /// The file with the DWARF, when there is one: `symbols` itself, or a separate debug file checked by
        /// build-id (and CRC for a debuglink), whose symbol table names what the first one does not cover.
        var debug: ELFImage?
        var info: ModuleDebugInfo
    }

    let search: DebugInfoSearch
    /// What the debuginfod queries of this locator's symbolicator have cost so far.
    let debuginfodRun = DebuginfodRun()

    /// A module's search on this machine's files (steps 1 to 4 of ``DebugInfoSearch``), and what it left for the
    /// debuginfod servers when it found no debug file.
    enum LocalSearch {
        case found(Found)
        case notFound(binary: ELFImage?, problem: SymbolicationError?, buildID: String?, searched: [String])
    }

    /// Resolves a module. `buildID` (lowercase hex) is the one recorded at crash time; nil trusts the file at
    /// `path` as it is (a live process, or a report without build-ids).
    func locate(path: String, buildID: String?) throws(SymbolicationError) -> Found {
        let binary: ELFImage?
        let binaryProblem: SymbolicationError?
        let wanted: String?
        var searched: [String]
        switch try searchLocally(path: path, buildID: buildID) {
        case .found(let found): return found
        case .notFound(let image, let problem, let buildID, let places):
            (binary, binaryProblem, wanted, searched) = (image, problem, buildID, places)
        }
        if let wanted, let servers = search.debuginfod, !servers.urls.isEmpty {
            switch debuginfodRun.ask(servers, buildID: wanted) {
            case .success(let file):
                if let image = Self.open(file, buildID: wanted, crc: nil, searched: &searched) {
                    return found(binary: binary, debug: image, source: .debuginfod)
                }
            case .failure(let reason):
                searched.append("debuginfod \(servers.urls.joined(separator: " ")) (\(reason.text))")
            }
        }
        let looked = searched.isEmpty ? "" : "; looked in: " + searched.joined(separator: ", ")
        guard let binary else {
            let problem = binaryProblem ?? .fileNotFound(path)
            throw problem.searched("; no debug file with build-id \(wanted ?? "?") found" + looked, path: path)
        }
        return Found(
            symbols: binary, debug: nil,
            info: ModuleDebugInfo(
                source: nil, debugFile: nil, symbolFile: path, missingReason: "no debug info found" + looked))
    }

    /// The build-id to ask the debuginfod servers for, when the module's debug info is not on this machine and
    /// there are servers to ask; nil otherwise.
    func buildIDForDebuginfod(path: String, buildID: String?) -> String? {
        guard let servers = search.debuginfod, !servers.urls.isEmpty,
            case .notFound(_, _, let wanted?, _)? = try? searchLocally(path: path, buildID: buildID)
        else { return nil }
        return wanted
    }

    /// Steps 1 to 4 of ``DebugInfoSearch``: the module's file, its debuglink, the debug roots and symbol stores.
    private func searchLocally(path: String, buildID: String?) throws(SymbolicationError) -> LocalSearch {
        var searched: [String] = []
        var binary: ELFImage? = nil
        var binaryProblem: SymbolicationError? = nil
        do {
            let image = try ELFImage(path: path)
            let own = image.buildID()
            if let buildID, own != buildID {
                binaryProblem = .buildIDMismatch(path, fileBuildID: own, report: buildID)
            } else {
                binary = image
            }
        } catch {
            // Without a build-id there is nothing else to look for: the file's own error is the answer.
            guard buildID != nil else { throw error }
            binaryProblem = error
        }
        let wanted = buildID ?? binary?.buildID()

        if let binary {
            if binary.hasDWARF {
                return .found(
                    Found(
                        symbols: binary, debug: binary,
                        info: ModuleDebugInfo(source: .binary, debugFile: path, symbolFile: path)))
            }
            searched.append("\(path) (no DWARF)")
            if let link = binary.debugLink() {
                let folder = Self.folder(of: path)
                let candidates =
                    [folder + "/" + link.name, folder + "/.debug/" + link.name]
                    + search.debugRoots.map { $0 + folder + "/" + link.name }
                for candidate in candidates {
                    if let image = Self.open(candidate, buildID: wanted, crc: link.crc, searched: &searched) {
                        return .found(found(binary: binary, debug: image, source: .debugLink))
                    }
                }
            }
        }
        if let wanted {
            let relative = Self.buildIDPath(wanted)
            for (folders, source) in [
                (search.debugRoots, ModuleDebugInfo.Source.buildIDDirectory), (search.symbolStores, .symbolStore),
            ] {
                for folder in folders {
                    if let image = Self.open(folder + "/" + relative, buildID: wanted, crc: nil, searched: &searched) {
                        return .found(found(binary: binary, debug: image, source: source))
                    }
                }
            }
        }
        return .notFound(binary: binary, problem: binaryProblem, buildID: wanted, searched: searched)
    }

    /// The module's own symbol tables first when its file is usable, as `llvm-symbolizer` does (a system library's
    /// debug file may name a function by another alias, or with a symbol version), the debug file's `.symtab`
    /// (`objcopy --only-keep-debug` keeps it) for what they do not cover; the debug file's alone when the
    /// module's file is absent or rebuilt.
    private func found(binary: ELFImage?, debug: ELFImage, source: ModuleDebugInfo.Source) -> Found {
        let symbols = binary ?? debug
        return Found(
            symbols: symbols, debug: debug,
            info: ModuleDebugInfo(source: source, debugFile: debug.path, symbolFile: symbols.path))
    }

    /// The debug file at `path` when it exists, carries DWARF and matches: same build-id (when both have one)
    /// and, for a debuglink, the recorded CRC. Records what it looked at.
    private static func open(
        _ path: String, buildID: String?, crc: UInt32?, searched: inout [String]
    ) -> ELFImage? {
        guard access(path, F_OK) == 0 else {
            searched.append(path)
            return nil
        }
        guard let image = try? ELFImage(path: path) else {
            searched.append("\(path) (not a readable ELF file)")
            return nil
        }
        let own = image.buildID()
        if let buildID, let own, own != buildID {
            searched.append("\(path) (build-id \(own))")
            return nil
        }
        if let crc, image.checksum() != crc {
            searched.append("\(path) (CRC differs from the debuglink's)")
            return nil
        }
        guard image.hasDWARF else {
            searched.append("\(path) (no DWARF)")
            return nil
        }
        return image
    }

    /// `xx/rest.debug` for a build-id.
    static func buildIDPath(_ buildID: String) -> String {
        ".build-id/" + buildID.prefix(2) + "/" + buildID.dropFirst(2) + ".debug"
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "" : String(path[..<slash])
    }

    struct Failure: Error {
        var text: String
    }

    static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The debuginfod queries of one ``Symbolicator``: the time they took together, whether one went unanswered, and
/// the answers so far.
///
/// A server that accepts connections and never answers would otherwise cost its whole timeout once per module,
/// one module after another. Once a query has timed out, the servers are not asked again; and the queries together
/// never wait longer than ``DebugInfoSearch/Debuginfod/totalTimeoutSeconds`` of wall time (queries that run at the
/// same time count once). ``prefetch(_:buildIDs:)`` asks for several modules at once, on threads of its own.
/// Tells whoever asked (the `axiom` tool, to show its progress on a terminal) when a debuginfod query starts and when
/// it is answered, with how many have been asked and answered in this process. Nobody by default.
package enum DebuginfodProgress {
    /// One query starting (`answered` false) or answered.
    package struct Event: Sendable {
        /// The build-id asked for.
        package var buildID: String
        /// Whether it was answered (a file, or why not) rather than asked.
        package var answered: Bool
        /// Queries asked so far in this process, and answered.
        package var asked: Int
        package var answers: Int
    }

    /// Who is told; nil: nobody.
    package static let observer = Mutex<(@Sendable (Event) -> Void)?>(nil)
    private static let counts = Mutex((asked: 0, answered: 0))

    static func tell(buildID: String, answered: Bool) {
        guard let observer = observer.withLock({ $0 }) else { return }
        let counts = counts.withLock { counts in
            if answered { counts.answered += 1 } else { counts.asked += 1 }
            return counts
        }
        observer(Event(buildID: buildID, answered: answered, asked: counts.asked, answers: counts.answered))
    }
}

final class DebuginfodRun: Sendable {
    /// How many queries ``prefetch(_:buildIDs:)`` runs at a time.
    static let concurrentQueries = 4

    private struct State {
        /// Wall time during which at least one query was waiting on the servers, queries now running excluded.
        var spent: Duration = .zero
        /// How many queries are waiting on the servers now, and since when one has been.
        var running = 0
        var busySince: ContinuousClock.Instant?
        /// The timeout (seconds) of the query the servers did not answer, once one did not.
        var unansweredAfter: Int?
        /// Each build-id's answer, once asked: a later ask for it (the module opened after a prefetch) takes it.
        var answers: [String: Result<String, DebugInfoLocator.Failure>] = [:]

        func spent(at now: ContinuousClock.Instant) -> Duration {
            spent + (busySince.map { now - $0 } ?? .zero)
        }
    }

    private let state = Mutex(State())

    /// Runs `body` with the state locked, and tells ThreadSanitizer so (see `axiom_tsan_acquire`): the prefetching
    /// threads share it.
    private func withState<R: Sendable>(_ body: (inout State) -> R) -> R {
        state.withLock { (state: inout State) -> R in
            let lock = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
            axiom_tsan_acquire(lock)
            defer { axiom_tsan_release(lock) }
            return body(&state)
        }
    }

    /// Asks the servers, unless this build-id was asked already (then its answer), an earlier query went
    /// unanswered, or the run's budget is spent; the cached file's path, or why not. The lock is not held through
    /// the query, so queries of several threads run together (see `axiom_debuginfod_find_debuginfo`).
    func ask(_ servers: DebugInfoSearch.Debuginfod, buildID: String) -> Result<String, DebugInfoLocator.Failure> {
        enum Decision {
            case answered(Result<String, DebugInfoLocator.Failure>)
            case ask(deadline: Int)
        }
        let start = ContinuousClock.now
        let decision = withState { state -> Decision in
            if let answer = state.answers[buildID] { return .answered(answer) }
            let left = Duration.seconds(servers.totalTimeoutSeconds) - state.spent(at: start)
            let leftSeconds = Int(left.components.seconds)
            guard leftSeconds >= 1 else {
                return .answered(
                    .failure(
                        .init(text: "not asked: this run's \(servers.totalTimeoutSeconds) s for debuginfod are spent")))
            }
            if let unansweredAfter = state.unansweredAfter {
                return .answered(
                    .failure(.init(text: "not asked: no answer within \(unansweredAfter) s earlier in this run")))
            }
            if state.running == 0 { state.busySince = start }
            state.running += 1
            return .ask(deadline: min(servers.timeoutSeconds, leftSeconds))
        }
        let deadline: Int
        switch decision {
        case .answered(let answer): return answer
        case .ask(let seconds): deadline = seconds
        }
        DebuginfodProgress.tell(buildID: buildID, answered: false)
        let answer = query(servers, buildID: buildID, deadline: deadline)
        DebuginfodProgress.tell(buildID: buildID, answered: true)
        let end = ContinuousClock.now
        return withState { state in
            state.running -= 1
            if state.running == 0, let busySince = state.busySince {
                state.spent += end - busySince
                state.busySince = nil
            }
            var answer = answer
            // libdebuginfod's answer for a server that is down or too slow varies by cause (curl's code, or
            // "not found" once the deadline abandoned the query); the time spent tells which it was.
            if case .failure = answer, end - start >= .seconds(deadline) {
                state.unansweredAfter = state.unansweredAfter ?? deadline
                let bound =
                    deadline < servers.timeoutSeconds
                    ? ", what was left of this run's \(servers.totalTimeoutSeconds) s" : ""
                answer = .failure(.init(text: "no answer within \(deadline) s" + bound))
            }
            state.answers[buildID] = answer
            return answer
        }
    }

    /// Asks for each of `buildIDs` not asked yet, at most ``concurrentQueries`` at a time, each on a thread of its
    /// own (a query blocks its thread for up to its timeout), and returns when all are answered. The answers are
    /// kept for ``ask(_:buildID:)``. The rules are ``ask(_:buildID:)``'s: a query that starts after one went
    /// unanswered, or once the budget is spent, does not ask.
    func prefetch(_ servers: DebugInfoSearch.Debuginfod, buildIDs: [String]) {
        let wanted = withState { state in buildIDs.filter { state.answers[$0] == nil } }
        var unique: [String] = []
        for buildID in wanted where !unique.contains(buildID) { unique.append(buildID) }
        guard unique.count > 1 else {
            for buildID in unique { _ = ask(servers, buildID: buildID) }
            return
        }
        let next = Atomic<Int>(0)
        let work = PrefetchWork { [unique] in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < unique.count else { return }
                _ = self.ask(servers, buildID: unique[index])
            }
        }
        let threads = (0..<min(Self.concurrentQueries, unique.count)).compactMap { _ in work.start() }
        // A thread that could not be started leaves its share to the others, or to this one.
        if threads.isEmpty { work.run() }
        for thread in threads { pthread_join(thread, nil) }
    }

    private func query(
        _ servers: DebugInfoSearch.Debuginfod, buildID: String, deadline: Int
    ) -> Result<String, DebugInfoLocator.Failure> {
        guard let bytes = DebugInfoLocator.bytes(fromHex: buildID) else { return .failure(.init(text: "bad build-id")) }
        var path: UnsafeMutablePointer<CChar>? = nil
        let urls = servers.urls.joined(separator: " ")
        let result = bytes.withUnsafeBufferPointer { buffer in
            axiom_debuginfod_find_debuginfo(
                buffer.baseAddress, Int32(buffer.count), urls, servers.cachePath,
                Int32(clamping: servers.timeoutSeconds), Int32(clamping: deadline), &path)
        }
        if result == 0, let path {
            defer { free(path) }
            return .success(String(cString: path))
        }
        switch -result {
        case ENOENT: return .failure(.init(text: "not found"))
        case ELIBACC:
            return .failure(.init(text: "not asked: libdebuginfod.so.1 could not be loaded (Debian: libdebuginfod1)"))
        default: return .failure(.init(text: String(cString: strerror(-result))))
        }
    }
}

/// What each prefetching thread runs, handed to `pthread_create` as its one argument.
private final class PrefetchWork: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) { self.run = run }

    /// Starts a thread running ``run``; nil when the system would not start one.
    func start() -> pthread_t? {
        let argument = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { argument in
                Unmanaged<PrefetchWork>.fromOpaque(argument!).takeRetainedValue().run()
                return nil
            }, argument)
        guard started == 0 else {
            Unmanaged<PrefetchWork>.fromOpaque(argument).release()
            return nil
        }
        return thread
    }
}
