#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How loaded the system is, as fractions from 0 (idle) to 1 (saturated). A nil figure could not be read.
package struct SystemHealth: Sendable, Hashable {
    /// Memory in use: the larger of the host's `1 − MemAvailable/MemTotal` and the cgroup's `current/max`.
    package var memoryUsage: Double?
    /// CPU load: the one-minute load average per online core, capped at 1.
    package var cpuLoad: Double?
    /// cgroup v2 CPU pressure: share of time some task waited for CPU over the last 10 s.
    package var cpuPressure: Double?
    /// cgroup v2 memory pressure: share of time some task stalled on memory over the last 10 s.
    package var memoryPressure: Double?

    /// Creates a reading.
    package init(
        memoryUsage: Double? = nil, cpuLoad: Double? = nil, cpuPressure: Double? = nil, memoryPressure: Double? = nil
    ) {
        self.memoryUsage = memoryUsage
        self.cpuLoad = cpuLoad
        self.cpuPressure = cpuPressure
        self.memoryPressure = memoryPressure
    }

    /// A system with nothing to report.
    package static let healthy = SystemHealth(memoryUsage: 0, cpuLoad: 0, cpuPressure: 0, memoryPressure: 0)
}

/// Where the feature level reads system health from. Tests inject their own.
package protocol SystemHealthSource: Sendable {
    /// Reads the current health.
    func read() async -> SystemHealth
}

/// System health read from Linux: `/proc/meminfo`, `/proc/loadavg`, and the cgroup v2 files
/// (`memory.max`, `memory.current`, `cpu.pressure`, `memory.pressure`) when present.
package struct LinuxSystemHealth: SystemHealthSource {
    /// Where `meminfo` and `loadavg` live.
    package let procRoot: String
    /// The process's cgroup v2 directory.
    package let cgroupRoot: String
    /// Online cores, for the load per core.
    package let cores: Int

    /// Reads from the real system unless told otherwise.
    package init(procRoot: String = "/proc", cgroupRoot: String = "/sys/fs/cgroup", cores: Int? = nil) {
        self.procRoot = procRoot
        self.cgroupRoot = cgroupRoot
        self.cores = max(1, cores ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    package func read() async -> SystemHealth {
        var health = SystemHealth()
        if let meminfo = LinuxFiles.read(procRoot + "/meminfo"),
            let total = LinuxFiles.meminfo(meminfo, "MemTotal"), total > 0,
            let available = LinuxFiles.meminfo(meminfo, "MemAvailable")
        {
            health.memoryUsage = 1 - Double(min(available, total)) / Double(total)
        }
        if let limit = LinuxFiles.cgroupNumber(cgroupRoot + "/memory.max"), limit > 0,
            let used = LinuxFiles.cgroupNumber(cgroupRoot + "/memory.current")
        {
            health.memoryUsage = max(health.memoryUsage ?? 0, min(1, Double(used) / Double(limit)))
        }
        if let loadavg = LinuxFiles.read(procRoot + "/loadavg"),
            let first = loadavg.split(separator: " ").first, let load = Double(first)
        {
            health.cpuLoad = min(1, load / Double(cores))
        }
        health.cpuPressure = LinuxFiles.pressure(cgroupRoot + "/cpu.pressure")
        health.memoryPressure = LinuxFiles.pressure(cgroupRoot + "/memory.pressure")
        return health
    }
}

/// System health given by a closure: a fixed reading, or one a test changes as it goes.
package struct SystemHealthProbe: SystemHealthSource {
    private let reading: @Sendable () async -> SystemHealth

    /// Reads health from `reading`.
    package init(_ reading: @escaping @Sendable () async -> SystemHealth) { self.reading = reading }

    /// Always reports `health`.
    package static func fixed(_ health: SystemHealth) -> SystemHealthProbe { SystemHealthProbe { health } }

    package func read() async -> SystemHealth { await reading() }
}
