import ArgumentParser
import AxiomSymbolication
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `axiom symbols add BINARY --store DIR`: what a deployment pipeline runs on a release build before shipping it.
struct Symbols: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "symbols",
        abstract: "Split debug info out of release builds into a symbol store.",
        subcommands: [Add.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
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
                    atPath: String(stored[..<(stored.lastIndex(of: "/") ?? stored.endIndex)]),
                    withIntermediateDirectories: true)
                if files.fileExists(atPath: stored) { try files.removeItem(atPath: stored) }
                try files.copyItem(atPath: debugFile, toPath: stored)
            } catch {
                printError("axiom: cannot store \(debugFile) as \(stored): \(error)")
                throw ExitCode(1)
            }
            print("\(binary): stripped, build-id \(buildID)")
            print("debug info: \(debugFile) (.gnu_debuglink), \(stored)")
        }

        /// Runs `tool` (found on `PATH`) with `arguments` and waits for it; output goes where the tool's own goes.
        private func runTool(_ tool: String, _ arguments: [String]) throws {
            let argv = ([tool] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = posix_spawnp(&pid, tool, nil, nil, argv, environ)
            guard spawned == 0 else {
                printError("axiom: cannot run \(tool): \(String(cString: strerror(spawned)))")
                throw ExitCode(1)
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED and WEXITSTATUS: the low 7 bits are the terminating signal, the next 8 the exit status.
            let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            guard exitStatus == 0 else {
                printError("axiom: \(tool) \(arguments.joined(separator: " ")) failed (\(exitStatus))")
                throw ExitCode(1)
            }
        }
    }
}
