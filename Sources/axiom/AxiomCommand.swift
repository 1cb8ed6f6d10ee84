import ArgumentParser

/// `axiom`: look up error identities, inspect plugins, process crash reports.
@main
struct AxiomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "axiom",
        abstract: "Tools for Axiom applications: error identities, plugins, crash reports.",
        subcommands: [Explain.self]
    )
}
