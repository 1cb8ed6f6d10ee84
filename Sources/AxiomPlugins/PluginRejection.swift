/// Why a file was not loaded as a plugin. Every refusal is a value: the host keeps running.
public struct PluginRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, one per check the loader makes, in the order it makes them.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Nothing exists at the path.
        case notFound
        /// The path exists but cannot be opened or read.
        case unreadable
        /// The path is a directory, a socket, a device: not a regular file.
        case notRegularFile
        /// The file does not start with the ELF magic.
        case notELF
        /// ELF of the other word size (ELF32 on a 64-bit host).
        case wrongClass
        /// ELF of the other byte order.
        case wrongByteOrder
        /// ELF for another machine (aarch64 on x86_64).
        case wrongArchitecture
        /// ELF, but an executable or an object file, not a shared object.
        case notSharedObject
        /// ELF headers that point outside the file or do not add up.
        case malformedELF
        /// A shared object whose dynamic symbol table does not define `axiom_plugin_entry_v1`.
        case missingEntrySymbol
        /// The file is writable by its group or by everyone.
        case fileWritableByOthers
        /// The directory holding the file is writable by its group or by everyone.
        case directoryWritableByOthers
        /// The same file (device and inode) is already loaded, through another path or link.
        case duplicateFile
        /// No scanner, which runs a plugin's code before the host takes its catalog, could be started: the
        /// ``PluginVetting/scannerPath`` named is missing, the host's own executable cannot be its scanner (a
        /// set-user-ID host without a separate `axiom-plugin-scanner`, no `/proc`), or the process did not start.
        case scannerUnavailable
        /// The plugin crashed in the scanner (the detail names the signal and where); the host is unharmed.
        case crashedInScanner
        /// The plugin did not return its catalog in the scanner's time limit; the scanner was killed.
        case timedOutInScanner
        /// The plugin ended the scanner process (`exit`) before it returned its catalog.
        case exitedInScanner
        /// `dlopen` failed; the detail holds `dlerror()`.
        case dlopenFailed
        /// `dlsym` did not find the entry after loading; the detail holds `dlerror()`.
        case entryUnresolved
        /// The entry returned a null descriptor.
        case nullDescriptor
        /// The descriptor's ABI version is not one this host speaks.
        case abiVersionMismatch
        /// The descriptor is smaller than this ABI version's.
        case structSizeMismatch
        /// Built against another ABI header, or by another Swift toolchain.
        case fingerprintMismatch
        /// The plugin's init reported failure; the detail holds its message.
        case initFailed
        /// The plugin id is malformed.
        case invalidPluginID
        /// A plugin with the same id is already loaded.
        case duplicatePluginID
        /// The catalog holds a null where a value is required, a value the host does not know, or bad text.
        case invalidCatalog
        /// The catalog ships texts for message keys that are not the plugin's own (see the host's text ownership).
        case foreignMessageKey
        /// A domain of the catalog is already owned by another source; nothing of the catalog is registered.
        /// Plugins shipped with the application load first, so a plugin found elsewhere is the one refused.
        case domainClash
        /// The registry refused the catalog for another reason (a duplicate code or alias).
        case registrationRefused
    }

    /// The path the loader was given or found.
    public let path: String
    /// Why it was refused.
    public let reason: Reason
    /// What a person needs to fix it: `dlerror()` text, the clashing sources, the expected value.
    public let detail: String

    /// Creates a rejection.
    public init(path: String, reason: Reason, detail: String) {
        self.path = path
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(path): \(reason.rawValue): \(detail)" }
}

/// A plugin that was loaded and whose catalog is registered.
public struct LoadedPlugin: Sendable, Hashable {
    /// The reverse-DNS id: the `source` of every descriptor the plugin registered.
    public let id: String
    /// The plugin's version.
    public let version: String
    /// The path it was loaded from.
    public let path: String
    /// The domains it owns.
    public let domains: [String]
    /// How many codes it registered.
    public let codeCount: Int
    /// The toolchain its fingerprint names.
    public let toolchain: String
    /// How long loading it took, from opening the file to its catalog registered: with a cached verdict, mostly
    /// reading the cache; otherwise mostly the scanner's run.
    public let loadDuration: Duration
}

/// What one pass of discovery and loading did.
public struct PluginLoadReport: Sendable {
    /// Plugins loaded in this pass, in load order.
    public var loaded: [LoadedPlugin] = []
    /// Files refused in this pass, in the order they were tried.
    public var rejected: [PluginRejection] = []
    /// How many scanner processes the host started during this pass (loads other threads made on the same host
    /// meanwhile included): zero when every verdict came from the cache.
    public var scannerLaunches = 0

    /// Creates an empty report.
    public init() {}
}
