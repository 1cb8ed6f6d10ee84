import AxiomCore
import CAxiomPluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Loads plugins into a registry: discovery, checks before any plugin code runs, vetting in the scanner,
/// transactional registration.
///
/// A host remembers what it loaded: each file (device and inode) and each plugin id loads once.
///
/// How a file becomes registered descriptors:
///
/// ```
///   path ─open/fstat─▶ regular? ─pread─▶ ELF64 LE, this machine, ET_DYN, exports the entry?
///        ─▶ file, its folder and every folder up to / not writable by others? ─▶ (device, inode) not seen yet?
///        ─▶ verdict cache hit? ──no──▶ the scanner (child process: dlopen, entry, ABI checks, copy)
///        ─▶ catalog as data ─▶ id not loaded yet? ─▶ texts only for its own keys? ─▶ English for every key?
///        ─▶ ErrorRegistry.register (all or nothing; a search's plugins together, in order, in one new state)
/// ```
///
/// Any step can refuse; a refusal is a PluginRejection value and the next file is tried. With the default
/// ``PluginVetting`` no plugin is ever mapped into the host: a plugin that crashes, hangs or exits does so in the
/// scanner. ``PluginVetting/inProcess`` maps plugins here instead (`RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE`, never
/// closed; every `dlopen` clears the Swift runtime's conformance caches, so load at start, not on a hot path).
public final class PluginHost: Sendable {
    /// The host that loads into `ErrorRegistry/shared`.
    public static let shared = PluginHost(registry: .shared)

    /// The registry plugins register into.
    package let registry: ErrorRegistry

    private let state = Mutex(State())

    private struct State {
        var files: Set<FileIdentity> = []
        var loaded: [LoadedPlugin] = []
        var loadedFiles: [FileIdentity: String] = [:]
        /// Ids of the plugins loaded from the application's own directory.
        var shipped: Set<String> = []
    }

    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// How a plugin's code is first run: in the scanner process by default.
    package let vetting: PluginVetting

    /// How many scanner processes this host has started: a start whose plugins are all in the verdict cache
    /// starts none.
    package var scannerLaunchCount: Int { scannerLaunches.load(ordering: .relaxed) }
    private let scannerLaunches = Atomic<Int>(0)

    /// Creates a host for a registry, and registers the domain of its refusals (`axiom.plugins`) there.
    ///
    /// - Parameters:
    ///   - registry: where loaded plugins' catalogs are registered.
    ///   - vetting: where plugins' code runs first; ``PluginVetting/standard`` (the scanner, with the verdict cache)
    ///     unless a test or benchmark opts into ``PluginVetting/inProcess``.
    public init(registry: ErrorRegistry, vetting: PluginVetting = .standard) {
        self.registry = registry
        self.vetting = vetting
        // Only another source that took the framework's domain name can refuse it; the refusals then stay
        // identified, decided as the registry's unknown code.
        _ = try? registry.registerFrameworkDomain(PluginRejection.builtinDomain)
    }

    /// Every plugin this host has loaded, in load order.
    public var loaded: [LoadedPlugin] { state.withTrackedLock { $0.loaded } }

    /// Discovers and loads plugins; see ``PluginSearch`` for where it looks.
    ///
    /// Every file is checked and vetted first, in the search's order; then the catalogs of the ones that passed are
    /// registered together, in the same order, each all or nothing, into one new state of the registry: a start
    /// with n plugins copies the registered codes once, not n times. A plugin refused at registration (its domain
    /// taken by an earlier one, say) is refused as it would be loaded alone after them, and counts for nothing to the
    /// plugins after it: each gets the answer it would get if the files were loaded one at a time.
    public func load(_ search: PluginSearch) -> PluginLoadReport {
        var report = PluginLoadReport()
        let launchesBefore = scannerLaunchCount
        let candidates = search.candidates(into: &report)
        for attempt in load(candidates.map { ($0.path, $0.quiet, $0.shipped) }, skipLoaded: true) {
            switch attempt {
            case .loaded(let plugin): report.loaded.append(plugin)
            case .rejected(let rejection): report.rejected.append(rejection)
            case .skipped: break
            }
        }
        report.scannerLaunches = scannerLaunchCount - launchesBefore
        return report
    }

    /// Loads one file, or says why not.
    @discardableResult
    public func load(file path: String) -> Result<LoadedPlugin, PluginRejection> {
        switch load([(path, false, false)], skipLoaded: false)[0] {
        case .loaded(let plugin): .success(plugin)
        case .rejected(let rejection): .failure(rejection)
        case .skipped: .failure(.refused(.notAPlugin, path: path, detail: "not a plugin"))
        }
    }

    /// What became of one file: loaded, refused, or passed over.
    enum Attempt {
        case loaded(LoadedPlugin)
        case rejected(PluginRejection)
        /// Not a plugin, in a directory where that is expected (the executable's own).
        case skipped
    }

    /// A file that passed every check before registration: its catalog waits to be registered with the others of
    /// its search.
    private struct Vetted {
        let path: String
        let identity: FileIdentity
        let accepted: PluginVerdict.Accepted
        let shipped: Bool
        /// The entry's address when the plugin was mapped here (in-process vetting), else nil.
        let entry: UnsafeRawPointer?
        /// The build-id, read from the file when the plugin was not mapped here.
        let buildID: [UInt8]?
        /// How long its checks and vetting took.
        let checked: Duration
    }

    /// What became of a file before registration.
    private enum Step {
        case done(Attempt)
        case vetted(Vetted)
        /// The file of the vetted file `pending[index]`, reached again through `path`: skipped or refused once that
        /// one is registered or refused.
        case sameFile(asPending: Int, path: String)
    }

    /// Loads files, in order: each is checked and vetted, then the catalogs of those that passed are registered
    /// together (see ``load(_:)-(PluginSearch)``). One result per file, in the files' order.
    private func load(_ files: [(path: String, quiet: Bool, shipped: Bool)], skipLoaded: Bool) -> [Attempt] {
        // Loads are serialized: two threads must not both pass the identity check for one file.
        state.withTrackedLock { state in
            var steps: [Step] = []
            var pending: [Vetted] = []
            for file in files {
                let step = check(
                    file: file.path, quietUnlessPlugin: file.quiet, shipped: file.shipped, skipLoaded: skipLoaded,
                    pending: pending, &state)
                if case .vetted(let vetted) = step { pending.append(vetted) }
                steps.append(step)
            }
            guard !pending.isEmpty else {
                return steps.map { step in
                    guard case .done(let attempt) = step else { preconditionFailure("a vetted file was not counted") }
                    return attempt
                }
            }
            // 6 and 7. Every vetted catalog, in order, checked against what is loaded and what this load registered
            // before it, then registered, each all or nothing, into one new state of the registry.
            let started = ContinuousClock.now
            var heldBack: [Int: Attempt] = [:]
            let outcomes = registry.registerChecked(
                pending.map(\.accepted.catalog), englishFrom: TextOwnership.isFramework
            ) { index, before in
                guard let refusal = admission(pending[index], after: before.map { pending[$0] }, state) else {
                    return true
                }
                heldBack[index] = refusal
                return false
            }
            let share = started.duration(to: .now) / pending.count
            var results = zip(pending.indices, outcomes).makeIterator()
            return steps.map { step in
                if case .sameFile(let first, let path) = step {
                    let loadedFrom: String?
                    if case .registered = outcomes[first] { loadedFrom = pending[first].path } else { loadedFrom = nil }
                    if skipLoaded && loadedFrom != nil { return .skipped }
                    return .rejected(
                        .refused(.duplicateFile, path: path, detail: Self.sameFileDetail(loadedFrom: loadedFrom)))
                }
                guard case .vetted = step, let (index, outcome) = results.next() else {
                    guard case .done(let attempt) = step else { preconditionFailure("a vetted file has no outcome") }
                    return attempt
                }
                switch outcome {
                case .registered: return finish(pending[index], registering: share, &state)
                case .refused(let refusal): return refused(pending[index], refusal, state)
                case .notAdmitted:
                    guard let attempt = heldBack[index] else { preconditionFailure("a catalog held back unsaid") }
                    return attempt
                }
            }
        }
    }

    /// Why a file reached again is refused: the path it was loaded from, or nil when it was tried and refused.
    private static func sameFileDetail(loadedFrom: String?) -> String {
        guard let loadedFrom else { return "the same file (device and inode) was already tried and refused" }
        return "the same file (device and inode) is already loaded from \(loadedFrom)"
    }

    /// The refusal of a vetted file whose catalog the registry refused.
    private func refused(_ vetted: Vetted, _ error: CatalogLoadError, _ state: borrowing State) -> Attempt {
        func refuse(_ reason: PluginRejection.Code, _ detail: String) -> Attempt {
            .rejected(.refused(reason, path: vetted.path, detail: detail))
        }
        guard let refusal = error.registration else { return refuse(.invalidCatalog, "\(error)") }
        guard refusal.code == .domainClash else { return refuse(.registrationRefused, refusal.description) }
        let precedence =
            state.shipped.contains(refusal.existingSource ?? "")
            ? "; \(refusal.existingSource ?? "") is shipped with the application, which takes precedence over "
                + "plugins found through AXIOM_PLUGIN_PATH or named paths"
            : ""
        return refuse(.domainClash, refusal.description + precedence)
    }

    /// Step 6 for one vetted file, made as its catalog's turn to be registered comes: one plugin id once, and texts
    /// only for the plugin's own keys, against the plugins loaded before and those of this load registered before it
    /// (`before`). A plugin of the same load refused at registration counts for nothing, as if loaded alone.
    private func admission(_ vetted: Vetted, after before: [Vetted], _ state: borrowing State) -> Attempt? {
        let accepted = vetted.accepted
        let other =
            state.loaded.first { $0.id == accepted.id }?.path ?? before.first { $0.accepted.id == accepted.id }?.path
        if let other {
            return .rejected(
                .refused(
                    .duplicatePluginID, path: vetted.path,
                    detail: "plugin id \(accepted.id) is already loaded from \(other)"))
        }
        if let detail = TextOwnership.foreignKeys(
            of: accepted.catalog, in: registry, alsoRegistering: before.map(\.accepted.catalog))
        {
            return .rejected(.refused(.invalidCatalog, path: vetted.path, detail: detail))
        }
        return nil
    }

    /// A registered plugin: remembered, reported, and written to the flight recorder.
    private func finish(_ vetted: Vetted, registering share: Duration, _ state: inout State) -> Attempt {
        let accepted = vetted.accepted
        let loaded = LoadedPlugin(
            id: accepted.id, version: accepted.version, path: vetted.path, domains: accepted.catalog.domains,
            codeCount: accepted.catalog.descriptors.count, toolchain: accepted.toolchain,
            loadDuration: vetted.checked + share)
        state.loadedFiles[vetted.identity] = vetted.path
        state.loaded.append(loaded)
        if vetted.shipped { state.shipped.insert(accepted.id) }
        if let entry = vetted.entry {
            PluginFlightRecord.add(loaded, address: entry)
        } else {
            PluginFlightRecord.add(loaded, buildID: vetted.buildID)
        }
        return .loaded(loaded)
    }

    /// Steps 1 to 5 for one file: every check before registration. `pending` are the files of the same load
    /// vetted before this one, whose catalogs are not registered yet.
    ///
    /// - Parameter quiet: skip, rather than report, a file that is not a plugin at all (not ELF, or no entry symbol)
    ///   or a plugin file already loaded through another path.
    /// - Parameter shipped: the file came with the application (its executable's directory): its domains take
    ///   precedence, which a clash with a later plugin names.
    /// - Parameter skipLoaded: skip quietly a file this host already loaded (a search that reaches a shipped
    ///   plugin again through a named path); a file tried and refused before is still reported.
    private func check(
        file path: String, quietUnlessPlugin quiet: Bool, shipped: Bool, skipLoaded: Bool, pending: [Vetted],
        _ state: inout State
    ) -> Step {
        let started = ContinuousClock.now
        func refuse(_ reason: PluginRejection.Code, _ detail: String) -> Step {
            .done(.rejected(.refused(reason, path: path, detail: detail)))
        }

        // 1. A regular file, opened once so that every check reads the same file. O_NONBLOCK: opening a FIFO
        //    must not wait for a writer.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return refuse(.notFound, "no such file") }
            return refuse(.unreadable, "cannot open the file: \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return refuse(.unreadable, "cannot read the file's status: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return refuse(.unreadable, "not a regular file: \(Self.fileKind(info.st_mode))")
        }

        // 2. ELF shared object for this machine exporting the entry, read without loading it.
        if let refusal = ELFImage.check(
            descriptor: descriptor, size: Int(info.st_size), exporting: AXIOM_PLUGIN_ENTRY_SYMBOL)
        {
            return quiet && refusal.isUnrelated ? .done(.skipped) : refuse(refusal.code, refusal.detail)
        }

        // 3. Nobody but the owner can change what gets loaded.
        let resolved = realPath(path) ?? path
        if let (reason, detail) = Self.checkWriters(file: info, directory: parentDirectory(of: resolved)) {
            return refuse(reason, detail)
        }

        // 4. One load per file, however many paths lead to it.
        let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        if state.files.contains(identity) {
            if quiet { return .done(.skipped) }
            if let other = state.loadedFiles[identity] {
                if skipLoaded { return .done(.skipped) }
                return refuse(.duplicateFile, Self.sameFileDetail(loadedFrom: other))
            }
            // Earlier in this load: loaded or not, as its registration will tell.
            if let first = pending.firstIndex(where: { $0.identity == identity }) {
                return .sameFile(asPending: first, path: path)
            }
            return refuse(.duplicateFile, Self.sameFileDetail(loadedFrom: nil))
        }
        state.files.insert(identity)

        // 5. The plugin's code runs: in the scanner (or a cached verdict of it), or here when asked to.
        var entry: UnsafeRawPointer?
        let verdict: PluginVerdict
        if vetting.mode == .inProcess {
            (verdict, entry) = PluginScanner.read(path: resolved)
        } else {
            verdict = scan(descriptor: descriptor, info: info)
        }
        let accepted: PluginVerdict.Accepted
        switch verdict {
        case .refused(let reason, let detail): return refuse(reason, detail)
        case .accepted(let value): accepted = value
        }

        // 6 (what depends on the plugins registered before it) comes at registration: see `admission`.
        return .vetted(
            Vetted(
                path: path, identity: identity, accepted: accepted, shipped: shipped, entry: entry,
                buildID: entry == nil ? ELFImage.buildID(descriptor: descriptor, size: Int(info.st_size)) : nil,
                checked: started.duration(to: .now)))
    }

    /// The verdict on the file open at `descriptor`: from the cache when the file is unchanged, else from a run of
    /// the scanner (stored in the cache).
    private func scan(descriptor: Int32, info: stat) -> PluginVerdict {
        let cache = vetting.cacheDirectory.map(PluginVerdictCache.init(directory:))
        let key = PluginVerdictCache.Key(descriptor: descriptor, info: info)
        if let cached = cache?.verdict(for: key) { return cached }
        let scanner: ScannerCommand
        switch vetting.resolveScanner() {
        case .success(let path): scanner = path
        case .failure(let failure): return .refused(failure.reason, failure.detail)
        }
        scannerLaunches.add(1, ordering: .relaxed)
        let verdict = ScannerProcess.scan(file: descriptor, scanner: scanner, timeout: vetting.timeout)
        switch verdict {
        case .refused(.scannerUnavailable, _), .refused(.timedOutInScanner, _):
            // Not the file's doing alone: a missing scanner or a loaded machine. Asked again next time.
            return verdict
        default:
            cache?.store(verdict, for: key)
        }
        return verdict
    }

    /// What a file that is not a regular one is, by the type bits of its mode: `a directory`, `a FIFO`, ….
    static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "of file type \(String(mode & S_IFMT, radix: 8))"
        }
    }

    /// A refusal when someone other than the owner (or root) can change the file or the directories that lead to
    /// it. The file and its own directory must be writable by their owner only; every directory above, up to `/`,
    /// too, unless it has the sticky bit and belongs to root or to the current user (as `/tmp`): the rule OpenSSH
    /// applies to `authorized_keys`.
    static func checkWriters(file: stat, directory: String) -> (PluginRejection.Code, String)? {
        let writableByOthers = mode_t(S_IWGRP | S_IWOTH)
        func who(_ mode: mode_t) -> String {
            let octal = "mode " + String(mode & 0o7777, radix: 8)
            switch (mode & mode_t(S_IWGRP) != 0, mode & mode_t(S_IWOTH) != 0) {
            case (true, true): return "writable by its group and by everyone (\(octal))"
            case (true, false): return "writable by its group (\(octal))"
            default: return "writable by everyone (\(octal))"
            }
        }
        guard file.st_mode & writableByOthers == 0 else {
            return (.unsafePermissions, "the file is \(who(file.st_mode)); only its owner may write it")
        }
        var current = directory
        var first = true
        while true {
            var info = stat()
            guard stat(current, &info) == 0 else {
                return (.unreadable, "directory \(current): \(String(cString: strerror(errno)))")
            }
            if info.st_mode & writableByOthers != 0 {
                // The sticky bit (as on /tmp) does not stop a writer from replacing files it owns itself in the
                // plugin's own folder: refused there; above, it stops anyone from renaming our folder away.
                let sticky = info.st_mode & mode_t(S_ISVTX) != 0
                let trustedOwner = info.st_uid == 0 || info.st_uid == geteuid()
                if first || !sticky || !trustedOwner {
                    let place = first ? "the plugin's folder \(current)" : "\(current), a folder above the plugin,"
                    let why =
                        first
                        ? "" : sticky ? " and is not owned by root or the current user" : " without the sticky bit"
                    return (.unsafePermissions, "\(place) is \(who(info.st_mode))\(why)")
                }
            }
            if current == "/" { return nil }
            current = parentDirectory(of: current)
            if current == "." { return nil }
            first = false
        }
    }
}

/// The canonical path, with symbolic links resolved.
func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// The directory part of a path: `/a/b` for `/a/b/c.so`, `.` for `c.so`.
func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
