import ArgumentParser
import Axiom

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
        var arguments = Array(CommandLine.arguments.dropFirst())
        if !arguments.contains("--") {
            let isNegativeNumber = { (token: String) in token.count > 1 && token.first == "-" && Int(token) != nil }
            let numbers = arguments.filter(isNegativeNumber)
            if !numbers.isEmpty { arguments = arguments.filter { !isNegativeNumber($0) } + ["--"] + numbers }
        }
        await main(arguments)
    }
}
