import AxiomCore
import CAxiomPluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Loads plugins into a registry: discovery, checks before `dlopen`, ABI checks, transactional registration.
///
/// Every `dlopen` clears the Swift runtime's conformance caches, so load plugins at start, not on a hot
/// path. A host remembers what it loaded: each file (device and inode) and each plugin id loads once.
///
/// How a file becomes registered descriptors:
///
/// ```
///   path ─open/fstat─▶ regular? ─pread─▶ ELF64 LE, this machine, ET_DYN, exports the entry?
///        ─▶ not writable by group/others (file and directory)? ─▶ (device, inode) not loaded yet?
///        ─▶ dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) ─▶ dlsym(entry) ─▶ descriptor
///        ─▶ ABI version, size, fingerprint, init status ─▶ id not loaded yet? ─▶ copy the catalog
///        ─▶ ErrorRegistry.register (all or nothing)
/// ```
///
/// Any step can refuse; a refusal is a PluginRejection value and the next file is tried. A loaded plugin is
/// never dlclose'd: descriptors, strings and code of it may be referenced for the life of the process.
public final class PluginHost: Sendable {
    /// The host that loads into ``ErrorRegistry/shared``.
    public static let shared = PluginHost(registry: .shared)

    /// The registry plugins register into.
    public let registry: ErrorRegistry

    private let state = Mutex(State())

    private struct State {
        var files: Set<FileIdentity> = []
        var loaded: [LoadedPlugin] = []
        var loadedFiles: [FileIdentity: String] = [:]
    }

    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Creates a host for a registry, and registers the domain of its refusals (`axiom.plugins`) there.
    public init(registry: ErrorRegistry) {
        self.registry = registry
        // Only another source that took the framework's domain name can refuse it; the refusals then stay
        // identified, decided as the registry's unknown code.
        try? registry.registerFrameworkDomain(PluginRejection.builtinDomain)
    }

    /// Every plugin this host has loaded, in load order.
    public var loaded: [LoadedPlugin] { state.withTrackedLock { $0.loaded } }

    /// Discovers and loads plugins; see ``PluginSearch`` for where it looks.
    public func load(_ search: PluginSearch) -> PluginLoadReport {
        var report = PluginLoadReport()
        for candidate in search.candidates(into: &report) {
            switch load(file: candidate.path, quietUnlessPlugin: candidate.quiet) {
            case .loaded(let plugin): report.loaded.append(plugin)
            case .rejected(let rejection): report.rejected.append(rejection)
            case .skipped: break
            }
        }
        return report
    }

    /// Loads one file, or says why not.
    @discardableResult
    public func load(file path: String) -> Result<LoadedPlugin, PluginRejection> {
        switch load(file: path, quietUnlessPlugin: false) {
        case .loaded(let plugin): .success(plugin)
        case .rejected(let rejection): .failure(rejection)
        case .skipped: .failure(PluginRejection(path: path, reason: .missingEntrySymbol, detail: "not a plugin"))
        }
    }

    enum Outcome {
        case loaded(LoadedPlugin)
        case rejected(PluginRejection)
        /// Not a plugin, in a directory where that is expected (the executable's own).
        case skipped
    }

    /// - Parameter quiet: skip, rather than report, a file that is not a plugin at all (no entry symbol) or a
    ///   plugin file already loaded through another path.
    func load(file path: String, quietUnlessPlugin quiet: Bool) -> Outcome {
        // Loads are serialized: two threads must not both pass the identity check for one file.
        state.withTrackedLock { state in
            func refuse(_ reason: PluginRejection.Reason, _ detail: String) -> Outcome {
                .rejected(PluginRejection(path: path, reason: reason, detail: detail))
            }

            // 1. A regular file, opened once so that every check reads the same file. O_NONBLOCK: opening a FIFO
            //    must not wait for a writer.
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else {
                let code = errno
                if code == ENOENT || code == ENOTDIR { return refuse(.notFound, "no such file") }
                return refuse(.unreadable, String(cString: strerror(code)))
            }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return refuse(.unreadable, String(cString: strerror(errno))) }
            guard info.st_mode & S_IFMT == S_IFREG else {
                return refuse(.notRegularFile, info.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file")
            }

            // 2. ELF shared object for this machine exporting the entry, read without loading it.
            if let (reason, detail) = ELFImage.check(
                descriptor: descriptor, size: Int(info.st_size), exporting: AXIOM_PLUGIN_ENTRY_SYMBOL)
            {
                return quiet && (reason == .missingEntrySymbol || reason == .notELF) ? .skipped : refuse(reason, detail)
            }

            // 3. Nobody but the owner can change what gets loaded.
            let writableByOthers = mode_t(S_IWGRP | S_IWOTH)
            guard info.st_mode & writableByOthers == 0 else {
                return refuse(.fileWritableByOthers, "mode \(String(info.st_mode & 0o7777, radix: 8))")
            }
            let resolved = realPath(path) ?? path
            let directory = parentDirectory(of: resolved)
            var directoryInfo = stat()
            guard stat(directory, &directoryInfo) == 0 else {
                return refuse(.unreadable, "directory \(directory): \(String(cString: strerror(errno)))")
            }
            // The sticky bit (as on /tmp) does not stop a writer from replacing files it owns itself: refuse too.
            guard directoryInfo.st_mode & writableByOthers == 0 else {
                return refuse(
                    .directoryWritableByOthers,
                    "\(directory) has mode \(String(directoryInfo.st_mode & 0o7777, radix: 8))")
            }

            // 4. One load per file, however many paths lead to it.
            let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if state.files.contains(identity) {
                if quiet { return .skipped }
                if let other = state.loadedFiles[identity] {
                    return refuse(.duplicateFile, "the same file (device and inode) is already loaded from \(other)")
                }
                return refuse(.duplicateFile, "the same file (device and inode) was already tried and refused")
            }

            // 5. Load. RTLD_NODELETE and no dlclose: the plugin's memory stays valid for the process.
            _ = dlerror()
            guard let handle = dlopen(resolved, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
                return refuse(.dlopenFailed, dlerror().map { String(cString: $0) } ?? "dlopen failed")
            }
            // From here on the file is mapped: remember it even if it is refused, so it is not opened again.
            state.files.insert(identity)
            guard let symbol = dlsym(handle, AXIOM_PLUGIN_ENTRY_SYMBOL) else {
                return refuse(.entryUnresolved, dlerror().map { String(cString: $0) } ?? "dlsym failed")
            }
            let entry = unsafeBitCast(symbol, to: axiom_plugin_entry_v1_fn.self)
            guard let plugin = entry() else { return refuse(.nullDescriptor, "the entry returned NULL") }

            // 6. The ABI contract, then the catalog.
            if let (reason, detail) = DescriptorReader.checkHeader(plugin) { return refuse(reason, detail) }
            let header = DescriptorReader.descriptor(plugin)
            let identification: (id: String, version: String, toolchain: String)
            switch DescriptorReader.identity(header) {
            case .success(let value): identification = value
            case .failure(let error): return refuse(error.reason, error.detail)
            }
            if let other = state.loaded.first(where: { $0.id == identification.id }) {
                return refuse(
                    .duplicatePluginID, "plugin id \(identification.id) is already loaded from \(other.path)")
            }
            let catalog: ErrorCatalog
            switch DescriptorReader.catalog(header, id: identification.id, version: identification.version) {
            case .success(let value): catalog = value
            case .failure(let error): return refuse(error.reason, "\(identification.id): \(error.detail)")
            }

            // 7. Every key the descriptors reference has an English text (CatalogCheck), then all or nothing.
            do throws(CatalogLoadError) {
                try registry.registerChecked(catalog)
            } catch {
                guard let refusal = error.registration else {
                    return refuse(.invalidCatalog, "\(identification.id): \(error)")
                }
                return refuse(refusal.kind == .domainClash ? .domainClash : .registrationRefused, refusal.description)
            }
            let loaded = LoadedPlugin(
                id: identification.id, version: identification.version, path: path, domains: catalog.domains,
                codeCount: catalog.descriptors.count, toolchain: identification.toolchain)
            state.loadedFiles[identity] = path
            state.loaded.append(loaded)
            PluginFlightRecord.add(loaded, address: UnsafeRawPointer(symbol))
            return .loaded(loaded)
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
