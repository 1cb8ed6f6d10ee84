import Foundation

/// Runs `llvm-symbolizer` as a child process and decodes its JSON output: the reference the tests
/// compare against.
enum LLVMSymbolizer {
    static let path = "/opt/swift/usr/bin/llvm-symbolizer"

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
