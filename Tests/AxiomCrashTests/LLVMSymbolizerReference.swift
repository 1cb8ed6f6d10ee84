import Foundation
import Testing

/// `llvm-symbolizer`'s answer for module-relative addresses: the reference the crash
/// reports' symbolication is compared with.
enum LLVMSymbolizerReference {
    /// The Swift toolchain's `llvm-symbolizer`: `LLVM_SYMBOLIZER` when set, else the one beside the first `swift` on
    /// `PATH`, else the toolchain's usual place in Swift's Linux images. Not any `llvm-symbolizer` on `PATH`: another
    /// LLVM's joins a unit's directory and file name differently (`./nptl/./nptl/…` from LLVM 14).
    static let path: String = {
        let environment = ProcessInfo.processInfo.environment
        if let configured = environment["LLVM_SYMBOLIZER"], !configured.isEmpty { return configured }
        for directory in (environment["PATH"] ?? "").split(separator: ":").map(String.init) {
            let candidate = directory + "/llvm-symbolizer"
            if access(directory + "/swift", X_OK) == 0, access(candidate, X_OK) == 0 { return candidate }
        }
        return "/opt/swift/usr/bin/llvm-symbolizer"
    }()

    /// Why a test that compares with `llvm-symbolizer` does not run.
    static let missing: Comment = "needs the Swift toolchain's llvm-symbolizer (on PATH, or LLVM_SYMBOLIZER)"

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
