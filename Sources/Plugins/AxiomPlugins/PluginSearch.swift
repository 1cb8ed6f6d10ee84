import AxiomCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a ``PluginHost`` looks for plugins, in this order of precedence: the running executable's own directory
/// (the plugins shipped with the application, where SwiftPM puts built plugins), the paths a user names, and the
/// directories of `AXIOM_PLUGIN_PATH`. They load in that order, so when two plugins claim one domain the one found
/// later is refused (`domainClash`, naming both): a plugin on a search path cannot displace a shipped catalog.
///
/// In a directory a user names (an explicit path or `AXIOM_PLUGIN_PATH`) every entry that is not a
/// loadable plugin is reported. In the executable's directory only `.so` files are tried, and one without the
/// entry symbol (an ordinary library) is skipped quietly. Each directory is listed in sorted order and read once,
/// however many names lead to it.
public struct PluginSearch: Sendable {
    /// Files or directories a user named.
    package var paths: [String]
    /// Directories from the environment (`AXIOM_PLUGIN_PATH`, colon-separated).
    package var environmentPaths: [String]
    /// The running executable's directory, or nil not to look there.
    package var executableDirectory: String?

    /// Creates a search over exactly these places.
    ///
    /// - Parameters:
    ///   - paths: files or directories a user named.
    ///   - environmentPaths: directories from the environment (`AXIOM_PLUGIN_PATH`, colon-separated).
    ///   - executableDirectory: the running executable's directory, or nil not to look there.
    public init(paths: [String] = [], environmentPaths: [String] = [], executableDirectory: String? = nil) {
        self.paths = paths
        self.environmentPaths = environmentPaths
        self.executableDirectory = executableDirectory
    }

    /// The standard search: the directory of `/proc/self/exe`, then `paths`, then `AXIOM_PLUGIN_PATH` (read with
    /// `secure_getenv`: ignored in a set-user-ID or set-group-ID process).
    public static func standard(paths: [String] = []) -> PluginSearch {
        let environment = secureEnvironment("AXIOM_PLUGIN_PATH") ?? ""
        let executable = realPath("/proc/self/exe").map(parentDirectory(of:))
        return PluginSearch(
            paths: paths, environmentPaths: environment.split(separator: ":").map(String.init),
            executableDirectory: executable)
    }

    struct Candidate {
        var path: String
        var quiet: Bool
        /// Found in the executable's directory: shipped with the application.
        var shipped: Bool
    }

    /// The files to try, in order. Directories that cannot be listed are reported into `report`.
    func candidates(into report: inout PluginLoadReport) -> [Candidate] {
        var result: [Candidate] = []
        var seenDirectories: Set<PluginHost.FileIdentity> = []
        func directoryIdentity(_ path: String) -> PluginHost.FileIdentity? {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
            return PluginHost.FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }
        func scan(_ directory: String, quiet: Bool, shipped: Bool = false) {
            guard let identity = directoryIdentity(directory), seenDirectories.insert(identity).inserted else { return }
            guard let names = listDirectory(directory) else {
                if !quiet {
                    report.rejected.append(
                        PluginRejection.refused(.unreadable, path: directory, detail: String(cString: strerror(errno))))
                }
                return
            }
            for name in names.sorted() where !quiet || name.hasSuffix(".so") || name.contains(".so.") {
                result.append(
                    Candidate(
                        path: directory == "/" ? "/" + name : directory + "/" + name, quiet: quiet, shipped: shipped))
            }
        }
        if let executableDirectory { scan(executableDirectory, quiet: true, shipped: true) }
        for path in paths + environmentPaths {
            if directoryIdentity(path) != nil {
                scan(path, quiet: false)
            } else {
                result.append(Candidate(path: path, quiet: false, shipped: false))
            }
        }
        return result
    }
}
