#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Storage: `directory` exists, is writable, and its file system has at least `minimumFreeBytes` free.
///
/// Free space is what an unprivileged process may use (`statvfs` `f_bavail`); a read-only mount fails.
public struct StorageCapability: Capability {
    public let name: String
    /// The directory the application writes to.
    package let directory: String
    /// The free space it needs.
    package let minimumFreeBytes: UInt64

    /// Creates the capability (named `storage` by default).
    public init(directory: String, minimumFreeBytes: UInt64 = 0, name: String = "storage") {
        self.name = name
        self.directory = directory
        self.minimumFreeBytes = minimumFreeBytes
    }

    /// Bytes free for unprivileged use on the directory's file system, or nil when it cannot be read.
    package func freeBytes() -> UInt64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    public func validate() async throws {
        func unmet(_ detail: String) -> CapabilityError {
            .requirementNotMet(CapabilityRequirement(capability: name, detail: detail))
        }
        var status = stat()
        guard stat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw unmet("directory \(directory) exists")
        }
        guard access(directory, W_OK) == 0 else { throw unmet("directory \(directory) is writable") }
        guard let free = freeBytes() else { throw unmet("free space of \(directory) is readable") }
        guard free >= minimumFreeBytes else {
            throw unmet("free space ≥ \(minimumFreeBytes) bytes in \(directory) (\(free) free)")
        }
    }
}
