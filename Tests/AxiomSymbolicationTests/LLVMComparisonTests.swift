import AxiomSymbolication
import CAxiomSymbolicationFixtures
import Foundation
import Testing

/// Compares our answers with `llvm-symbolizer`'s on sampled addresses (function start + N) of modules with
/// DWARF (the test executable) and without (libswiftCore, libc: symbol table fallback).
@Suite("Symbolicator agrees with llvm-symbolizer")
struct LLVMComparisonTests {
    static var testExecutable: String {
        LoadedModule.containing(address: axiom_fixture_return_address())!.path
    }

    static let swiftCore = "/opt/swift/usr/lib/swift/linux/libswiftCore.so"
    static let libc = "/lib/x86_64-linux-gnu/libc.so.6"

    /// Up to `count` addresses spread over the module's functions: start, start + size / 2, start + size - 1.
    private func sampleAddresses(_ symbolicator: Symbolicator, module: String, count: Int) throws -> [UInt64] {
        let symbols = try symbolicator.functionSymbols(modulePath: module).filter { $0.size > 0 }
        guard !symbols.isEmpty else { return [] }
        let step = max(1, symbols.count / count)
        var addresses: [UInt64] = []
        for (position, index) in stride(from: 0, to: symbols.count, by: step).enumerated() {
            let symbol = symbols[index]
            switch position % 3 {
            case 0: addresses.append(symbol.address)
            case 1: addresses.append(symbol.address + symbol.size / 2)
            default: addresses.append(symbol.address + symbol.size - 1)
            }
        }
        return addresses
    }

    /// `text` with every `name/../` step removed.
    static func withoutParentSteps(_ text: String) -> String {
        var result = text
        while let range = result.range(of: #"[^/ ]+/\.\./"#, options: .regularExpression) {
            result.removeSubrange(range)
        }
        return result
    }

    private func compare(module: String, count: Int, expectDebugInfo: Bool) throws {
        let symbolicator = Symbolicator()
        let addresses = try sampleAddresses(symbolicator, module: module, count: count)
        #expect(addresses.count > count / 2)
        let answers = try LLVMSymbolizer.symbolicate(module: module, addresses: addresses)
        try #require(answers.count == addresses.count)
        var withFiles = 0
        var mismatches: [String] = []
        for (address, answer) in zip(addresses, answers) {
            let frames = (try? symbolicator.symbolicate(modulePath: module, address: address)) ?? []
            let reference = answer.Symbol.filter { $0.FunctionName != "??" }
            let ours = frames.map { frame in
                let name = frame.mangledName ?? frame.function ?? "??"
                return "\(name) \(frame.file ?? ""):\(frame.line ?? 0):\(frame.column ?? 0)"
            }
            // Without line info llvm-symbolizer names the file of the preceding STT_FILE symbol (a bare,
            // often wrong basename such as "crtstuff.c"); we report no file instead.
            // Paths are compared without `dir/..` steps: the sanitizer runtimes that `--sanitize=address` links
            // in name one header both as `asan/../sanitizer_common/x.h` and `sanitizer_common/x.h`.
            let theirs = reference.map { location in
                let file = location.Line == 0 && frames.allSatisfy({ $0.file == nil }) ? "" : location.FileName
                return "\(location.FunctionName) \(Self.withoutParentSteps(file)):\(location.Line):\(location.Column)"
            }
            if ours.map(Self.withoutParentSteps) != theirs {
                mismatches.append("0x\(String(address, radix: 16)):\n  ours   \(ours)\n  theirs \(theirs)")
            }
            if frames.contains(where: { $0.file != nil }) { withFiles += 1 }
        }
        #expect(
            mismatches.isEmpty,
            "\(mismatches.count) of \(addresses.count) differ:\n\(mismatches.prefix(10).joined(separator: "\n"))")
        // The module has debug info and it is read: most addresses get a file. Not all: thunks and outlined
        // code have no line info, for llvm-symbolizer too (about 1 in 10 in a debug build, 1 in 6 in a release
        // build), and each address's answer is compared with llvm-symbolizer's above.
        if expectDebugInfo { #expect(withFiles >= addresses.count * 3 / 4) }
    }

    @Test(
        "Test executable (DWARF 4 from Swift, DWARF 5 from C)",
        .enabled(if: LLVMSymbolizer.isAvailable, LLVMSymbolizer.missing))
    func testExecutable() throws {
        try compare(module: Self.testExecutable, count: 3000, expectDebugInfo: true)
    }

    @Test("libswiftCore.so (symbol table only)", .enabled(if: LLVMSymbolizer.isAvailable, LLVMSymbolizer.missing))
    func swiftCore() throws {
        try compare(module: Self.swiftCore, count: 400, expectDebugInfo: false)
    }

    @Test("libc (dynamic symbols only)", .enabled(if: LLVMSymbolizer.isAvailable, LLVMSymbolizer.missing))
    func libc() throws {
        try compare(module: Self.libc, count: 300, expectDebugInfo: false)
    }
}
