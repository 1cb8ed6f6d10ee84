import AxiomSymbolication
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A C program stripped with `--strip-all`, its `objcopy --only-keep-debug` file beside it through a
/// `.gnu_debuglink`: the debug file's symbol table names what the stripped binary's tables and DWARF do not
/// (`_start`, a unit compiled without `-g`), and a debug file of another build is never used for names.
@Suite("Names from a stripped binary's debug file's symbol table")
struct DebugFileSymbolTableTests {
    static let gcc = "/usr/bin/gcc"
    static let objcopy = "/usr/bin/objcopy"
    static let strip = "/usr/bin/strip"
    static var toolsAvailable: Bool {
        [gcc, objcopy, strip].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Compiled with `-g`.
    static let withDWARF = """
        #include <stdio.h>
        int plain_mix(int);
        __attribute__((noinline)) int traced_square(int x) { return x * x + plain_mix(x); }
        __attribute__((noinline)) int traced_sum(int n) {
            int sum = 0;
            for (int i = 0; i < n; i++) sum += traced_square(i);
            return sum;
        }
        int main(int argc, char **argv) {
            (void)argv;
            printf("%d\\n", traced_sum(argc));
            return 0;
        }
        """

    /// Compiled without `-g`: symbols, no DWARF.
    static let withoutDWARF = """
        __attribute__((noinline)) int plain_mix(int x) { return (x ^ 0x5a) * 3; }
        __attribute__((noinline)) int plain_unused(int x) { return plain_mix(x) + 1; }
        """

    /// A program's files: `name` unstripped, `name.s` stripped with a debuglink to `name.debug`.
    struct Program {
        let unstripped: String
        let stripped: String
        let debugFile: String
        let buildID: String
    }

    /// Builds the two units into `directory/name` (`defines` passed to both compilations, `linkOptions` to the
    /// link), then `name.debug` (`objcopy --only-keep-debug`) and `name.s` (`strip --strip-all`, with a
    /// `.gnu_debuglink` to `debugLink`, `name.debug` by default).
    static func build(
        in directory: String, name: String, defines: [String] = [], linkOptions: [String] = [],
        debugLink: String? = nil
    ) throws -> Program {
        let base = directory + "/" + name
        try withDWARF.write(toFile: base + "-a.c", atomically: false, encoding: .utf8)
        try withoutDWARF.write(toFile: base + "-b.c", atomically: false, encoding: .utf8)
        let log = directory + "/tools.stderr"
        func run(_ tool: String, _ arguments: [String]) throws {
            try ChildProcess.runSucceeding(tool, arguments, log: log)
        }
        try run(gcc, ["-g", "-O2", "-c"] + defines + [base + "-a.c", "-o", base + "-a.o"])
        try run(gcc, ["-O2", "-c"] + defines + [base + "-b.c", "-o", base + "-b.o"])
        try run(gcc, ["-O2", "-Wl,--build-id"] + linkOptions + [base + "-a.o", base + "-b.o", "-o", base])
        try run(objcopy, ["--only-keep-debug", base, base + ".debug"])
        try run(strip, ["--strip-all", "-o", base + ".s", base])
        try run(objcopy, ["--add-gnu-debuglink=" + (debugLink ?? base + ".debug"), base + ".s"])
        return Program(
            unstripped: base, stripped: base + ".s", debugFile: base + ".debug",
            buildID: try #require(elfBuildID(path: base)))
    }

    /// A search that finds the debuglink'd file beside the binary and nothing else.
    static let besideOnly = DebugInfoSearch(debugRoots: [], symbolStores: [])

    @Test(
        "Every function of the stripped binary is named as llvm-symbolizer names it in the unstripped one",
        .enabled(if: toolsAvailable, "needs gcc, objcopy and strip (binutils)"),
        .enabled(if: LLVMSymbolizerReference.isAvailable, LLVMSymbolizerReference.missing))
    func everyFunctionNamed() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let program = try Self.build(in: directory.path, name: "prog")
        #expect(!elfHasDWARF(path: program.stripped))
        let functions = try Symbolicator().functionSymbols(modulePath: program.unstripped)
        let names = Set(functions.map(\.name))
        // The cases the stripped binary's own tables and DWARF say nothing of, and one DWARF names.
        for name in ["_start", "plain_mix", "plain_unused", "traced_square", "main"] {
            try #require(names.contains(name), "\(name) is not among \(names.sorted())")
        }
        #expect(try Symbolicator().functionSymbols(modulePath: program.stripped).isEmpty)

        let addresses = functions.flatMap { [$0.address] + ($0.size > 1 ? [$0.address + $0.size - 1] : []) }
        let reference = try LLVMSymbolizerReference.symbolicate(
            module: program.unstripped, addresses: addresses, scratchDirectory: directory.path)
        try #require(reference.count == addresses.count)
        let symbolicator = Symbolicator(search: Self.besideOnly)
        #expect(
            try symbolicator.debugInfo(modulePath: program.stripped, buildID: program.buildID).source == .debugLink)
        var mismatches: [String] = []
        for (address, answer) in zip(addresses, reference) {
            let theirs = answer.Symbol.last?.FunctionName
            let ours = try? symbolicator.symbolicate(
                modulePath: program.stripped, buildID: program.buildID, address: address
            ).last?.function
            if ours != theirs || theirs == nil || theirs == "??" {
                mismatches.append("0x\(String(address, radix: 16)): ours \(ours ?? "nil"), theirs \(theirs ?? "nil")")
            }
        }
        #expect(
            mismatches.isEmpty,
            "\(mismatches.count) of \(addresses.count) differ:\n\(mismatches.joined(separator: "\n"))")

        // The command line as a user runs it.
        let start = try #require(functions.first { $0.name == "_start" })
        let result = ChildProcess.runAxiom(
            ["symbolicate", "--binary", program.stripped, "0x" + String(start.address, radix: 16)],
            outputIn: directory.path)
        #expect(result.termination.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("_start\n"), "\(result.stdout)")
    }

    @Test(
        "A debug file with another build-id is never used for names, found by debuglink or in a .build-id folder",
        .enabled(if: toolsAvailable, "needs gcc, objcopy and strip (binutils)"),
        arguments: ["debuglink", "build-id folder"])
    func otherBuildIDNotUsed(_ place: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Another build of the same code at the same addresses, its functions renamed, under another build-id.
        let other = try Self.build(
            in: directory.path, name: "other",
            defines: ["-Dtraced_square=wrong_square", "-Dtraced_sum=wrong_sum", "-Dplain_mix=wrong_mix"],
            linkOptions: ["-Wl,--build-id=0x" + String(repeating: "5e", count: 20)])
        // The stripped binary's debuglink names the other build's debug file, so its CRC is the recorded one:
        // only the build-id tells them apart.
        let program = try Self.build(in: directory.path, name: "prog", debugLink: other.debugFile)
        #expect(other.buildID != program.buildID)
        let root = directory.path + "/root"
        let debugLinked = directory.path + "/other.debug"
        let misplaced: String
        if place == "debuglink" {
            misplaced = debugLinked
        } else {
            let relative = ".build-id/" + program.buildID.prefix(2) + "/" + program.buildID.dropFirst(2) + ".debug"
            misplaced = root + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (misplaced as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: debugLinked, toPath: misplaced)
        }
        let symbolicator = Symbolicator(search: DebugInfoSearch(debugRoots: [root], symbolStores: []))
        let info = try symbolicator.debugInfo(modulePath: program.stripped, buildID: program.buildID)
        #expect(info.source == nil)
        #expect(info.missingReason?.contains("\(misplaced) (build-id \(other.buildID))") == true, "\(info)")

        let functions = try Symbolicator().functionSymbols(modulePath: program.unstripped)
        let start = try #require(functions.first { $0.name == "_start" })
        #expect(throws: SymbolicationError.self) {
            _ = try symbolicator.symbolicate(
                modulePath: program.stripped, buildID: program.buildID, address: start.address)
        }
        for function in functions {
            let frames =
                (try? symbolicator.symbolicate(
                    modulePath: program.stripped, buildID: program.buildID, address: function.address)) ?? []
            #expect(!frames.contains { $0.function?.hasPrefix("wrong_") == true }, "\(function.name): \(frames)")
        }
    }
}
