import AxiomCore

/// Why a file was not loaded as a plugin. Every refusal is a value: the host keeps running.
///
/// Shaped like the framework's other errors: a ``code`` to match, the ``throwSite``, and the identity
/// `axiom.plugins/<code>`.
public struct PluginRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why it was refused: one code per thing an operator does about it (rebuild the plugin for this machine,
    /// change a folder's permissions, …). Several checks share a code; ``detail`` says which one failed.
    public typealias Code = NamedCase<PluginRejection>

    private let facts: ErrorFacts<PluginRejection>
    /// The path the loader was given or found.
    public let path: String
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public var throwSite: ThrowSite { facts.throwSite }

    /// The file at `path` is refused with `code`.
    static func refused(
        _ code: Code, path: String, detail: String, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(facts: ErrorFacts(code, detail, file: file, line: line), path: path)
    }

    /// Why it was refused.
    public var code: Code { facts.code }

    /// Which check failed, and what a person needs to fix it: `dlerror()` text, the clashing sources, the expected
    /// value.
    public var detail: String { facts.text }

    public var description: String { "\(path): \(code.name): \(detail)" }
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
    /// How long loading it took: from opening the file to its catalog checked, and its share of the one
    /// registration of its search's catalogs (the registration's time divided by the plugins registered), so that a
    /// search's plugins add up to its loading. With a cached verdict, mostly reading the cache; otherwise mostly the
    /// scanner's run.
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
    package init() {}
}

extension NamedCase where Owner == PluginRejection {
    /// Nothing exists at the path.
    public static var notFound: Self { Self(name: "notFound") }
    /// The path cannot be opened or read, or is not a regular file (a directory, a FIFO, a device); the detail says
    /// which.
    public static var unreadable: Self { Self(name: "unreadable") }
    /// The file is not an Axiom plugin: not ELF, a damaged ELF file, an executable or object file rather than a
    /// shared library, no `axiom_plugin_entry_v1` in its dynamic symbol table or none that `dlsym` resolves after
    /// loading, or an entry that returns a null descriptor. The detail says which.
    public static var notAPlugin: Self { Self(name: "notAPlugin") }
    /// ELF built for another machine: another word size (ELF32 on a 64-bit host), another byte order, or another
    /// processor (aarch64 on x86_64). The detail names the file's and the host's.
    public static var wrongPlatform: Self { Self(name: "wrongPlatform") }
    /// Someone other than the owner can change what gets loaded: the file, its folder or a folder above it is
    /// writable by its group or by everyone. The detail names which and its mode.
    public static var unsafePermissions: Self { Self(name: "unsafePermissions") }
    /// The same file (device and inode) is already loaded, through another path or link.
    public static var duplicateFile: Self { Self(name: "duplicateFile") }
    /// No scanner, which runs a plugin's code before the host takes its catalog, could be started: the
    /// ``PluginVetting/scannerPath`` named is missing, the host's own executable cannot be its scanner (a
    /// set-user-ID host without a separate `axiom-plugin-scanner`, no `/proc`), or the process did not start.
    public static var scannerUnavailable: Self { Self(name: "scannerUnavailable") }
    /// The plugin crashed in the scanner, or ended the scanner process (`exit`) before it returned its catalog; the
    /// detail names the signal and where, or the exit status. The host is unharmed.
    public static var crashedInScanner: Self { Self(name: "crashedInScanner") }
    /// The plugin did not return its catalog in the scanner's time limit; the scanner was killed.
    public static var timedOutInScanner: Self { Self(name: "timedOutInScanner") }
    /// `dlopen` failed; the detail holds `dlerror()`.
    public static var dlopenFailed: Self { Self(name: "dlopenFailed") }
    /// The descriptor is for another version of the plugin interface: its ABI version is not one this host speaks,
    /// or it is smaller than that version's. The detail gives both values.
    public static var incompatibleABI: Self { Self(name: "incompatibleABI") }
    /// Built against another ABI header, or by another Swift toolchain.
    public static var fingerprintMismatch: Self { Self(name: "fingerprintMismatch") }
    /// The plugin's init reported failure; the detail holds its message.
    public static var initFailed: Self { Self(name: "initFailed") }
    /// The plugin id is malformed.
    public static var invalidPluginID: Self { Self(name: "invalidPluginID") }
    /// A plugin with the same id is already loaded.
    public static var duplicatePluginID: Self { Self(name: "duplicatePluginID") }
    /// The catalog holds a null where a value is required, a value the host does not know, or bad text, or ships
    /// texts for message keys that are not the plugin's own (see the host's text ownership). The detail says which.
    public static var invalidCatalog: Self { Self(name: "invalidCatalog") }
    /// A domain of the catalog is already owned by another source; nothing of the catalog is registered.
    /// Plugins shipped with the application load first, so a plugin found elsewhere is the one refused.
    public static var domainClash: Self { Self(name: "domainClash") }
    /// The registry refused the catalog for another reason (a duplicate code or alias).
    public static var registrationRefused: Self { Self(name: "registrationRefused") }
    /// Every code, in the order the loader first checks for it.
    package static var all: [Self] {
        [
            .notFound, .unreadable, .notAPlugin, .wrongPlatform, .unsafePermissions, .duplicateFile,
            .scannerUnavailable, .crashedInScanner, .timedOutInScanner, .dlopenFailed, .incompatibleABI,
            .fingerprintMismatch, .initFailed, .invalidPluginID, .duplicatePluginID, .invalidCatalog, .domainClash,
            .registrationRefused,
        ]
    }

    /// The code named `name`, or nil when there is none.
    init?(named name: String) {
        guard let code = Self.all.first(where: { $0.name == name }) else { return nil }
        self = code
    }
}
