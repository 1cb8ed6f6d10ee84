/// Memory headroom: at least `minimumAvailableBytes` can still be allocated.
///
/// Headroom is the smaller of the kernel's `MemAvailable` (`/proc/meminfo`) and, inside a cgroup v2 with a
/// limit, `memory.max − memory.current`: a container hits its limit long before the host runs out. The roots
/// are parameters so tests can point them at prepared files.
public struct MemoryHeadroom: Capability {
    public let name: String
    /// The headroom needed.
    package let minimumAvailableBytes: UInt64
    /// Where `meminfo` lives (`/proc`).
    package let procRoot: String
    /// The process's cgroup v2 directory (`/sys/fs/cgroup`).
    package let cgroupRoot: String

    /// Creates the capability (named `memory` by default).
    public init(
        minimumAvailableBytes: UInt64, procRoot: String = "/proc", cgroupRoot: String = "/sys/fs/cgroup",
        name: String = "memory"
    ) {
        self.name = name
        self.minimumAvailableBytes = minimumAvailableBytes
        self.procRoot = procRoot
        self.cgroupRoot = cgroupRoot
    }

    /// The headroom in bytes now, or nil when neither source can be read.
    package func availableBytes() -> UInt64? {
        let host = LinuxFiles.read(procRoot + "/meminfo").flatMap { LinuxFiles.meminfo($0, "MemAvailable") }
        var cgroup: UInt64?
        if let limit = LinuxFiles.cgroupNumber(cgroupRoot + "/memory.max"),
            let used = LinuxFiles.cgroupNumber(cgroupRoot + "/memory.current")
        {
            cgroup = limit > used ? limit - used : 0
        }
        switch (host, cgroup) {
        case (let host?, let cgroup?): return min(host, cgroup)
        case (let host?, nil): return host
        case (nil, let cgroup?): return cgroup
        case (nil, nil): return nil
        }
    }

    public func validate() async throws {
        guard let available = availableBytes() else {
            throw CapabilityError.requirementNotMet(
                CapabilityRequirement(capability: name, detail: "memory figures readable under \(procRoot)"))
        }
        guard available >= minimumAvailableBytes else {
            throw CapabilityError.requirementNotMet(
                CapabilityRequirement(
                    capability: name, detail: "≥ \(minimumAvailableBytes) bytes available (\(available) available)"))
        }
    }
}
