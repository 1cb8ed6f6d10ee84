import ArgumentParser
import Axiom
import Glibc

/// `axiom`: look up error identities, inspect plugins, process crash reports.
@main
struct AxiomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "axiom",
        abstract: "Tools for Axiom applications: error identities, plugins, crash reports.",
        // `axiom --version`: the release of the framework the tool was built from.
        version: "axiom \(AxiomVersion.current)",
        subcommands: [Explain.self, Plugins.self, Symbolicate.self, CrashReports.self, Symbols.self]
    )

    /// Runs the command. A negative number ("-32003", a numeric alias) is an argument, not a cluster of short
    /// options: such tokens move behind a `--` so that ArgumentParser reads them as positional values.
    static func main() async {
        // Symbolication reads ahead on every processor, and glibc gives each thread's arena its memory by `mprotect`,
        // a little at a time: 613 calls for 200 addresses of a 12 MB binary, 36 with a pad of 16 MB (which only
        // reserves address space; pages cost memory when they are touched). Set before the first thread starts.
        padThreadHeaps(by: 16 << 20)
        var arguments = Array(CommandLine.arguments.dropFirst())
        if !arguments.contains("--") {
            let isNegativeNumber = { (token: String) in token.count > 1 && token.first == "-" && Int(token) != nil }
            let numbers = arguments.filter(isNegativeNumber)
            if !numbers.isEmpty { arguments = arguments.filter { !isNegativeNumber($0) } + ["--"] + numbers }
        }
        if let command = Symbolicate.parsedWithManyAddresses(arguments) {
            do {
                try await command.run()
            } catch {
                exit(withError: error)
            }
            return
        }
        await main(arguments)
    }
}

/// glibc's `mallopt(M_TOP_PAD, bytes)`: `malloc.h` is not part of the Glibc module, so the function is looked up.
private func padThreadHeaps(by bytes: Int32) {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let topPad: Int32 = -2  // M_TOP_PAD in malloc.h
    guard let mallopt = dlsym(nil, "mallopt") else { return }
    _ = unsafeBitCast(mallopt, to: Mallopt.self)(topPad, bytes)
}

extension Symbolicate {
    /// `axiom symbolicate --binary FILE ADDRESS…` with a long list of addresses, parsed in time linear in its
    /// length; `nil` for any other command line, which ArgumentParser parses whole.
    ///
    /// ArgumentParser stores each positional value by copying the values and origins it holds so far, so 200
    /// addresses cost it a few milliseconds, more than symbolicating many of them. Here it parses the command line
    /// up to the second address of the trailing run of numbers; when both landed among the inputs, in order, the
    /// rest of the run follows them, as ArgumentParser would have put them. When the run's first number is an
    /// option's value (`--debuginfod-timeout 5 0x…`), the run starts after it. The line is parsed as `symbolicate`'s
    /// alone, so ArgumentParser does not build its model of the other commands (0.7 ms of a 32 ms run); anything
    /// it does not accept that way (`--help`, a mistake) goes to the whole parse, which answers it.
    static func parsedWithManyAddresses(_ arguments: [String]) -> Symbolicate? {
        guard arguments.first == "symbolicate", !arguments.contains("--") else { return nil }
        var run = arguments.endIndex
        while run > 1, parseAddress(arguments[run - 1]) != nil { run -= 1 }
        for start in [run, run + 1] where arguments.endIndex - start > 2 {
            guard var command = try? Symbolicate.parse(Array(arguments[1..<(start + 2)])), command.binary != nil
            else { return nil }
            if command.inputs.suffix(2).elementsEqual(arguments[start..<(start + 2)]) {
                command.inputs.append(contentsOf: arguments[(start + 2)...])
                return command
            }
        }
        return nil
    }
}
