#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the small text files of `/proc` and `/sys/fs/cgroup`, whose reported size is zero, until end of file.
enum LinuxFiles {
    static func read(_ path: String, limit: Int = 1 << 16) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A `/proc/meminfo` field in bytes (`MemAvailable:  123 kB`).
    static func meminfo(_ text: String, _ field: String) -> UInt64? {
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, let value = UInt64(parts[1]) else { return nil }
            let unit = parts.count >= 3 ? parts[2].lowercased() : ""
            return unit == "kb" ? value * 1024 : value
        }
        return nil
    }

    /// A cgroup v2 single-number file; nil for `max` (no limit) or when absent.
    static func cgroupNumber(_ path: String) -> UInt64? {
        guard let text = read(path)?.trimmingWhitespace(), text != "max" else {
            return nil
        }
        return UInt64(text)
    }

    /// The `some avg10=` figure of a cgroup v2 pressure file, as a fraction (0…1).
    static func pressure(_ path: String) -> Double? {
        guard let text = read(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("some ") {
            for field in line.split(separator: " ") where field.hasPrefix("avg10=") {
                return Double(field.dropFirst("avg10=".count)).map { $0 / 100 }
            }
        }
        return nil
    }
}
