import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Builds and places plugin files for the loader's tests, each test in its own private temporary directory.
struct FixtureDirectory {
    let path: String

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let abiInclude = repository + "/Sources/Plugins/CAxiomPluginABI/include"
    /// The first revision of the ABI header, kept as it shipped: plugins built against it must keep loading.
    static let abiRevision1Include = repository + "/Tests/PluginFixtures/abi-revision-1"
    static let source = repository + "/Tests/PluginFixtures/fixture_plugin.c"

    /// The directory the test binary runs from: SwiftPM builds the shipped plugins there.
    static let buildDirectory = URL(fileURLWithPath: testBinary).deletingLastPathComponent().path

    /// The running test binary: the host's own executable, which is also a plugin scanner.
    static let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

    /// A fresh directory, mode 0700.
    init() throws {
        var template = Array((NSTemporaryDirectory() + "/axiom-plugins-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw FixtureError("mkdtemp failed") }
        path = String(cString: made)
    }

    /// A directory that already exists (inside another fixture directory), removed with it.
    init(existing path: String) { self.path = path }

    func file(_ name: String) -> String { path + "/" + name }

    /// A verdict cache for the directory's plugins, beside it (inside, it would be listed as a file to load).
    var cache: String { path + ".verdicts" }

    /// Compiles `fixture_plugin.c` with the given `-D` options into `name`, mode 0755, against the ABI header in
    /// `include` (today's by default).
    @discardableResult
    func plugin(_ name: String, _ defines: [String] = [], include: String = abiInclude) throws -> String {
        let output = file(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["cc", "-shared", "-fPIC", "-O1", "-I", include] + defines.map { "-D" + $0 }
            + [Self.source, "-o", output]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw FixtureError("cc failed: \(text)")
        }
        chmod(output, 0o755)
        return output
    }

    /// Writes bytes to `name`, mode 0644.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let output = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: output))
        chmod(output, 0o644)
        return output
    }

    /// A 64-byte ELF header and nothing else: enough for the loader to read class, byte order and machine.
    static func elfHeader(class elfClass: UInt8, machine: UInt16, type: UInt16 = 3) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 64)
        header[0...3] = [0x7F, 0x45, 0x4C, 0x46]
        header[4] = elfClass
        header[5] = 1  // little-endian
        header[6] = 1  // EV_CURRENT
        header[16] = UInt8(type & 0xFF)
        header[17] = UInt8(type >> 8)
        header[18] = UInt8(machine & 0xFF)
        header[19] = UInt8(machine >> 8)
        header[20] = 1
        return header
    }

    func remove() {
        _ = try? FileManager.default.removeItem(atPath: path)
        _ = try? FileManager.default.removeItem(atPath: cache)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
