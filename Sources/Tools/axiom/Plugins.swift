import ArgumentParser
import AxiomPlugins
import FoundationEssentials

/// `axiom plugins [--plugin-path DIR]... [--json]`: which plugins load, and why the others do not.
struct Plugins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the plugins that load and the files that are refused.",
        discussion: """
            Looks beside the axiom executable (the shipped plugins, which take precedence), then in each \
            --plugin-path, then in AXIOM_PLUGIN_PATH (colon-separated). Each plugin's code runs first in a \
            scanner, a child process (axiom-plugin-scanner beside the tool, else the tool itself), so a plugin \
            that crashes or hangs is refused and the others load. Exits 0 when nothing was refused, 1 otherwise.
            """
    )

    @OptionGroup var plugins: PluginOptions

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() async throws {
        let report = plugins.load()
        if json {
            try printJSON(PluginsReport(report))
        } else {
            for plugin in report.loaded {
                print(
                    "loaded   \(plugin.id) \(plugin.version)  \(plugin.domains.joined(separator: ", "))  "
                        + "\(plugin.codeCount) codes  \(plugin.path)")
            }
            for rejection in report.rejected {
                print("rejected \(rejection.path)  \(rejection.code.name): \(rejection.detail)")
            }
            if report.loaded.isEmpty && report.rejected.isEmpty { print("no plugins found") }
        }
        if !report.rejected.isEmpty { throw ExitCode(1) }
    }
}

/// The JSON shape of `axiom plugins --json`. Keys are stable: scripts read them.
struct PluginsReport: Encodable {
    struct Loaded: Encodable {
        let id: String
        let version: String
        let path: String
        let domains: [String]
        let codes: Int
        let loadMilliseconds: Double
    }

    struct Rejected: Encodable {
        let path: String
        let reason: String
        let detail: String
    }

    let loaded: [Loaded]
    let rejected: [Rejected]
    /// Scanner processes started; 0 when every verdict came from the cache.
    let scannerLaunches: Int

    init(_ report: PluginLoadReport) {
        loaded = report.loaded.map {
            Loaded(
                id: $0.id, version: $0.version, path: $0.path, domains: $0.domains, codes: $0.codeCount,
                loadMilliseconds: Double($0.loadDuration.components.attoseconds) / 1e15
                    + Double($0.loadDuration.components.seconds) * 1000)
        }
        rejected = report.rejected.map { Rejected(path: $0.path, reason: $0.code.name, detail: $0.detail) }
        scannerLaunches = report.scannerLaunches
    }
}
