import Foundation
import Testing

/// Runs `llvm-symbolizer` as a child process and decodes its JSON output: the reference the tests
/// compare against.
enum LLVMSymbolizer {
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
        var Column: Int
    }

    struct Answer: Decodable {
        var Address: String
        var Symbol: [Location]
    }

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Symbolicates module-relative `addresses` of `module`, one answer per address, in order.
    static func symbolicate(module: String, addresses: [UInt64]) throws -> [Answer] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        // Linkage names: C++ demangling differs in details between LLVM and libstdc++ (`>>` vs `> >`).
        process.arguments = ["--obj=\(module)", "--output-style=JSON", "--inlining", "--no-demangle"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Write from another thread: the child's output pipe could fill while we are still writing.
        let request = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
        let writer = Thread {
            input.fileHandleForWriting.write(Data(request.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(Answer.self, from: Data($0)) }
    }
}
