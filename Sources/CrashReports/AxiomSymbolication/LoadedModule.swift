import CAxiomDwarf

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A module loaded in this process: its file and its load bias (runtime address minus file address).
package struct LoadedModule: Sendable, Hashable {
    /// The module's file. For the main executable, the target of `/proc/self/exe`.
    package var path: String
    /// `dlpi_addr`: add it to a file address to get the runtime address.
    package var loadBias: UInt64

    /// The module whose loaded segments contain `address` (a live address in this process), or nil.
    package static func containing(address: UInt) -> LoadedModule? {
        var buffer = [CChar](repeating: 0, count: 4096)
        var bias: UInt64 = 0
        let found = buffer.withUnsafeMutableBufferPointer {
            axiom_dwarf_find_loaded_module(address, $0.baseAddress, $0.count, &bias)
        }
        guard found != 0 else { return nil }
        var path = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if path.isEmpty { path = executablePath() }
        return LoadedModule(path: path, loadBias: bias)
    }

    /// The GNU build-id (lowercase hex) of the loaded module containing `address`, read from the module's notes in
    /// memory: the build-id of the code that runs, even when its file was replaced since. Nil when no module
    /// contains the address or it has no build-id.
    package static func buildID(containing address: UInt) -> String? {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBufferPointer {
            Int(axiom_dwarf_loaded_module_build_id(address, $0.baseAddress, $0.count))
        }
        guard count > 0 else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(count * 2)
        for byte in bytes.prefix(count) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// `/proc/self/exe` resolved, so reports name the real file.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return "/proc/self/exe" }
        return buffer.withUnsafeBufferPointer {
            String(decoding: UnsafeRawBufferPointer(start: $0.baseAddress, count: count), as: UTF8.self)
        }
    }
}
