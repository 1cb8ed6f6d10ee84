import CAxiomFlightRecorder
import Synchronization

/// The plugins loaded into the process, as the crash reporter's flight recorder lists them: every host adds the
/// plugins it loads, so a crash report names them (id, version, build-id, file).
enum PluginFlightRecord {
    private static let entries = Mutex<[UInt8]>([])
    private static let count = Atomic<UInt32>(0)
    /// Plugin lists beyond this size stop growing (ids, versions and paths are short; a process loads a handful).
    static let byteLimit = 64 * 1024

    /// Adds a loaded plugin; `address` is any address inside its mapped file (its entry point), to find its
    /// build-id.
    static func add(_ plugin: LoadedPlugin, address: UnsafeRawPointer) {
        var buildID = [UInt8](repeating: 0, count: 64)
        let length = buildID.withUnsafeMutableBufferPointer {
            axiom_flight_recorder_build_id(address, $0.baseAddress, $0.count)
        }
        buildID.removeLast(buildID.count - length)
        add(plugin, buildID: buildID)
    }

    /// Adds a plugin that was vetted in the scanner and never mapped here, with the build-id read from its file.
    static func add(_ plugin: LoadedPlugin, buildID: [UInt8]?) {
        let buildID = buildID ?? []
        let fields = [Array(plugin.id.utf8), Array(plugin.version.utf8), buildID, Array(plugin.path.utf8)]
            .map { Array($0.prefix(Int(UInt16.max))) }
        entries.withTrackedLock { entries in
            var entry: [UInt8] = []
            for field in fields { entry += [UInt8(field.count & 0xff), UInt8(field.count >> 8)] }
            for field in fields { entry += field }
            guard entries.count + entry.count + 8 <= byteLimit else { return }
            entries += entry
            let total = count.add(1, ordering: .relaxed).newValue
            var payload = withUnsafeBytes(of: total.littleEndian) { Array($0) } + [0, 0, 0, 0]
            payload += entries
            _ = payload.withUnsafeBufferPointer { axiom_flight_recorder_set_plugins($0.baseAddress, $0.count) }
        }
    }
}
