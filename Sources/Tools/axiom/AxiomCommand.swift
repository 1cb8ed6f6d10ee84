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
        if let line = AddressLookupLine(arguments) {
            do {
                try line.run()
            } catch {
                exit(withError: error)
            }
            // The answers are out: the process ends here, its tables returned with its memory at once rather than
            // freed one by one, and with no other thread to wind down (half a millisecond of a 25 ms run).
            _exit(outputWritten() ? 0 : 1)
        }
        await main(arguments)
        if !outputWritten() { exit(withError: ExitCode(1)) }
    }
}

/// Writes out what the command printed and says whether all of it was written. A command whose output went to a
/// full disk fails, with the reason on standard error, rather than exiting 0 with its output cut short.
private func outputWritten() -> Bool {
    let flushed = fflush(nil) == 0
    let reason = String(cString: strerror(errno))
    // A write that failed before the flush (a large print is written at once) is remembered by the stream.
    // `stdout` is C's global, which Swift 6 code may not read; the C library's symbol is the same stream.
    let stream = dlsym(nil, "stdout")?.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self).pointee
    guard !flushed || stream.map({ ferror($0) != 0 }) == true else { return true }
    printError("axiom: the output could not be written: \(flushed ? "a write failed" : reason)")
    return false
}

/// glibc's `mallopt(M_TOP_PAD, bytes)`: `malloc.h` is not part of the Glibc module, so the function is looked up.
private func padThreadHeaps(by bytes: Int32) {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let topPad: Int32 = -2  // M_TOP_PAD in malloc.h
    guard let mallopt = dlsym(nil, "mallopt") else { return }
    _ = unsafeBitCast(mallopt, to: Mallopt.self)(topPad, bytes)
}

/// `axiom symbolicate --binary FILE ADDRESS…`, read without ArgumentParser.
///
/// It is the form a crash pipeline or a script runs for every stack, and ArgumentParser's reading of it cost more
/// than symbolicating many of its addresses: 2 ms of a 33 ms run on a 13 MB binary (4 ms of CPU), most of it the
/// Swift runtime scanning every conformance record of every loaded library for each type ArgumentParser's
/// reflection meets, and its positional values stored by copying those before them (a time quadratic in the
/// number of addresses). This reads `symbolicate`'s options as ArgumentParser does (`--option value` or
/// `--option=value`, in any order among the addresses) and gives the same values to the same code. Any other line
/// is left to ArgumentParser, which answers it as before: one without `--binary`, with `--log`, `--help` or an
/// option this does not know, a value that is missing, empty, looks like an option or is not a number where one
/// is asked for, an option that takes one value given twice, a flag given twice, or `--`.
struct AddressLookupLine {
    var binary = ""
    var inputs: [String] = []
    var json = false
    var symbolStores: [String] = []
    var debugRoots: [String] = []
    var debuginfodURLs: [String] = []
    var debuginfodTimeout: Int?
    var debuginfodTotalTimeout: Int?

    /// The line's values, or nil when ArgumentParser is to read it. `arguments` start with the command's name.
    init?(_ arguments: [String]) {
        guard arguments.first == "symbolicate" else { return nil }
        var binary: String?
        var flags: Set<Substring> = []
        var index = arguments.index(after: arguments.startIndex)
        while index < arguments.endIndex {
            let token = arguments[index]
            index += 1
            guard token.hasPrefix("-") else {
                inputs.append(token)
                continue
            }
            let name = token.prefix { $0 != "=" }
            let attached = name.endIndex == token.endIndex ? nil : token[token.index(after: name.endIndex)...]
            switch name {
            case "--json", "--json-lines":
                // Both ask for JSON: an address's answer is one line either way.
                guard attached == nil, flags.insert(name).inserted else { return nil }
                json = true
                continue
            default:
                break
            }
            // An option with a value: attached, or the next argument.
            let value: String
            if let attached {
                value = String(attached)
            } else {
                guard index < arguments.endIndex else { return nil }
                value = arguments[index]
                index += 1
            }
            guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
            switch name {
            case "--binary":
                guard binary == nil else { return nil }
                binary = value
            case "--symbols": symbolStores.append(value)
            case "--debug-dir": debugRoots.append(value)
            case "--debuginfod": debuginfodURLs.append(value)
            case "--debuginfod-timeout":
                guard debuginfodTimeout == nil, let seconds = Int(value) else { return nil }
                debuginfodTimeout = seconds
            case "--debuginfod-total-timeout":
                guard debuginfodTotalTimeout == nil, let seconds = Int(value) else { return nil }
                debuginfodTotalTimeout = seconds
            default:
                return nil
            }
        }
        guard let binary else { return nil }
        self.binary = binary
    }

    /// Answers the line's addresses, as `Symbolicate` does with the same values.
    func run() throws {
        try Symbolicate.symbolicateAddresses(
            of: binary, inputs: inputs, json: json,
            search: DebugInfoOptions.search(
                symbolStores: symbolStores, debugRoots: debugRoots, debuginfodURLs: debuginfodURLs,
                debuginfodTimeout: debuginfodTimeout, debuginfodTotalTimeout: debuginfodTotalTimeout))
    }
}
