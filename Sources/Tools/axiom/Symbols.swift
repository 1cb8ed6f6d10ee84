import ArgumentParser
import AxiomSymbolication
import Foundation

/// `axiom symbols add BINARY --store DIR`: what a deployment pipeline runs on a release build before shipping it.
struct Symbols: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Split debug info out of release builds into a symbol store.",
        subcommands: [Add.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Strip a binary, keep its debug info beside it and in a symbol store by build-id.",
            discussion: """
                With binutils' objcopy: copies the DWARF of BINARY into BINARY.debug (--only-keep-debug), strips \
                BINARY in place (--strip-debug: the symbol table stays, so function names survive on the machine \
                that runs it) with a .gnu_debuglink to BINARY.debug, then copies BINARY.debug into the store as \
                DIR/.build-id/xx/rest.debug (xx: the first two hex digits of the build-id, rest: the others; the \
                layout of /usr/lib/debug/.build-id, gdb and debuginfod -F read it too). Ship BINARY; keep the store. \
                `axiom symbolicate REPORT --symbols DIR` then symbolicates its crash reports, from any machine.
                """
        )

        @Argument(help: "An ELF executable or shared object with DWARF and a build-id (link with --build-id).")
        var binary: String

        @Option(name: .customLong("store"), help: "The symbol store folder (created when missing).")
        var store: String

        @Option(name: .customLong("objcopy"), help: "The objcopy to run.")
        var objcopy = "objcopy"

        func run() async throws {
            guard let buildID = elfBuildID(path: binary) else {
                printError("axiom: \(binary) has no GNU build-id (link with --build-id), or is not an ELF file")
                throw ExitCode(1)
            }
            guard elfHasDWARF(path: binary) else {
                printError("axiom: \(binary) carries no DWARF (already stripped?)")
                throw ExitCode(1)
            }
            let debugFile = binary + ".debug"
            try runTool(objcopy, ["--only-keep-debug", binary, debugFile])
            // objcopy records the debug file's name (not its folder) and CRC-32 in .gnu_debuglink.
            try runTool(objcopy, ["--strip-debug", "--add-gnu-debuglink=\(debugFile)", binary])

            let stored = store + "/.build-id/" + buildID.prefix(2) + "/" + buildID.dropFirst(2) + ".debug"
            let files = FileManager.default
            do {
                try files.createDirectory(
                    atPath: (stored as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if files.fileExists(atPath: stored) { try files.removeItem(atPath: stored) }
                try files.copyItem(atPath: debugFile, toPath: stored)
            } catch {
                printError("axiom: cannot store \(debugFile) as \(stored): \(error.localizedDescription)")
                throw ExitCode(1)
            }
            print("\(binary): stripped, build-id \(buildID)")
            print("debug info: \(debugFile) (.gnu_debuglink), \(stored)")
        }

        private func runTool(_ tool: String, _ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
            do {
                try process.run()
            } catch {
                printError("axiom: cannot run \(tool): \(error.localizedDescription)")
                throw ExitCode(1)
            }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                printError("axiom: \(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
                throw ExitCode(1)
            }
        }
    }
}
