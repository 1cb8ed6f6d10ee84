import Foundation

/// `llvm-symbolizer`'s answer for module-relative addresses: the reference the crash
/// reports' symbolication is compared with.
enum LLVMSymbolizerReference {
    static let path = "/opt/swift/usr/bin/llvm-symbolizer"

    struct Location: Decodable {
        var FunctionName: String
        var FileName: String
        var Line: Int
    }

    struct Answer: Decodable {
        var Symbol: [Location]
    }

    static var isAvailable: Bool { access(path, X_OK) == 0 }

    /// One answer per address, in order; linkage names (`--no-demangle`), inlined
    /// frames innermost first.
    static func symbolicate(module: String, addresses: [UInt64], scratchDirectory: String) throws -> [Answer] {
        let output = scratchDirectory + "/llvm-symbolizer.json"
        let arguments =
            ["--obj=\(module)", "--output-style=JSON", "--inlining", "--no-demangle"]
            + addresses.map { "0x" + String($0, radix: 16) }
        let termination = ChildProcess.run(path, arguments, stdoutPath: output)
        guard termination.exitCode == 0 else { throw ReferenceError(message: "llvm-symbolizer \(termination)") }
        // Addresses given on the command line come back as one JSON array.
        return try JSONDecoder().decode([Answer].self, from: Data(readFileBytes(output) ?? []))
    }

    struct ReferenceError: Error {
        var message: String
    }
}
