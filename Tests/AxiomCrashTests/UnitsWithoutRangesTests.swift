import AxiomSymbolication
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A program whose compile units' DIEs give no address ranges (no `DW_AT_low_pc`, `DW_AT_high_pc` or
/// `DW_AT_ranges`), as some producers write them: the symbolicator finds each function's unit from the functions
/// the unit holds, whether it reads ahead or answers one address at a time.
@Suite("Units whose DIE gives no address ranges")
struct UnitsWithoutRangesTests {
    static let gcc = "/usr/bin/gcc"
    static var gccAvailable: Bool { FileManager.default.isExecutableFile(atPath: gcc) }

    /// Two units without ranges, and `main` in a unit with them.
    static let sources = [
        "twice.c": "int twice(int x) { return x * 2; }\nint thrice(int x) { return x * 3; }\n",
        "fourfold.c": "int fourfold(int x) { return x * 4; }\n",
        "main.c": """
        int twice(int), thrice(int), fourfold(int);
        int main(int argc, char **argv) { (void)argv; return twice(argc) + thrice(argc) + fourfold(argc); }

        """,
    ]

    /// gcc's assembly for a unit, its DIE's `DW_AT_low_pc` and `DW_AT_high_pc` renamed to attributes of the
    /// vendors' range (0x2001, 0x2002) in its abbreviation: the values keep their sizes, so no offset moves, and no
    /// reader takes them for the unit's range.
    static func withoutUnitRange(_ assembly: String) throws -> String {
        var lines = assembly.components(separatedBy: "\n")
        for (attribute, code, vendor) in [("(DW_AT_low_pc)", "0x11", "0x2001"), ("(DW_AT_high_pc)", "0x12", "0x2002")] {
            // The unit's abbreviation is the first to name them (`gcc -dA` comments every line).
            let index = try #require(lines.firstIndex { $0.hasSuffix(attribute) }, "no \(attribute) in gcc's output")
            try #require(lines[index].contains(".uleb128 \(code)"), "unexpected line: \(lines[index])")
            lines[index] = lines[index].replacingOccurrences(of: ".uleb128 \(code)", with: ".uleb128 \(vendor)")
        }
        return lines.joined(separator: "\n")
    }

    /// Builds the program in `directory`.
    static func build(in directory: String) throws -> String {
        let log = directory + "/gcc.stderr"
        func run(_ arguments: [String]) throws { try ChildProcess.runSucceeding(gcc, arguments, log: log) }
        var objects: [String] = []
        for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
            let base = directory + "/" + name.dropLast(2)
            try source.write(toFile: base + ".c", atomically: false, encoding: .utf8)
            if name == "main.c" {
                try run(["-g", "-O1", "-c", base + ".c", "-o", base + ".o"])
            } else {
                try run(["-g", "-O1", "-S", "-dA", base + ".c", "-o", base + ".s"])
                let assembly = try String(contentsOfFile: base + ".s", encoding: .utf8)
                try withoutUnitRange(assembly).write(toFile: base + ".s", atomically: false, encoding: .utf8)
                try run(["-c", base + ".s", "-o", base + ".o"])
            }
            objects.append(base + ".o")
        }
        let program = directory + "/program"
        try run(objects + ["-o", program])
        return program
    }

    @Test(
        "Functions of units without ranges are found, read ahead or one at a time, beside code no unit describes",
        .enabled(if: gccAvailable, "needs gcc"))
    func functionsOfUnitsWithoutRangesAreFound() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let program = try Self.build(in: directory.path)
        let symbols = try Symbolicator().functionSymbols(modulePath: program)
        let expected = [("twice", "twice.c", 1), ("thrice", "twice.c", 2), ("fourfold", "fourfold.c", 1)]
        var addresses: [UInt64] = []
        for (name, _, _) in expected {
            let symbol = try #require(symbols.first { $0.name == name }, "no symbol \(name)")
            addresses.append(symbol.address + 1)
        }
        // The C runtime's start-up code: in no unit's ranges, so the units without ranges are all read to look
        // for it.
        let start = try #require(symbols.first { $0.name == "_start" })
        addresses.append(start.address + 1)

        let alone = Symbolicator()
        let oneAtATime = addresses.map { try? alone.symbolicate(modulePath: program, address: $0) }
        let ahead = Symbolicator()
        ahead.prepare(modulePath: program, addresses: addresses)
        let readAhead = addresses.map { try? ahead.symbolicate(modulePath: program, address: $0) }
        for answers in [oneAtATime, readAhead] {
            for (index, (name, file, line)) in expected.enumerated() {
                let frame = try #require(answers[index]?.last, "no answer for \(name)")
                #expect(frame.function == name)
                #expect(frame.file?.hasSuffix("/" + file) == true, "\(name): \(frame.file ?? "no file")")
                #expect(frame.line == line, "\(name)")
            }
            #expect(answers[3]?.last?.function == "_start")
            #expect(answers[3]?.last?.line == nil)
        }
        #expect(readAhead == oneAtATime)
    }
}
