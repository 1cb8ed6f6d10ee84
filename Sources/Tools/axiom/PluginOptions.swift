import ArgumentParser
import AxiomPlugins
import FoundationEssentials

/// `--plugin-path DIR` and `--scan-timeout SECONDS`, shared by the commands that need plugin domains.
struct PluginOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp(
            "A plugin file or a directory of plugins; repeatable. Searched after the executable's directory (whose plugins take precedence) and before AXIOM_PLUGIN_PATH.",
            valueName: "path"))
    var pluginPaths: [String] = []

    @Option(
        name: .customLong("scan-timeout"),
        help: ArgumentHelp(
            "How long the plugin scanner may take for one plugin before it is killed and the plugin refused. Raise it on a slow or loaded machine: a time-out is not cached, so the next start scans that plugin again.",
            valueName: "seconds"))
    var scanTimeout: Double = 5

    /// The longest scan time accepted: an hour.
    static let longestScanTimeout: Double = 3600

    mutating func validate() throws {
        guard scanTimeout.isFinite, scanTimeout > 0, scanTimeout <= Self.longestScanTimeout else {
            throw ValidationError(
                "--scan-timeout takes a number of seconds above 0 and at most \(Int(Self.longestScanTimeout)).")
        }
    }

    /// Loads the plugins of the standard search into the shared registry.
    func load() -> PluginLoadReport {
        let vetting = PluginVetting(timeout: .milliseconds(Int64((scanTimeout * 1000).rounded(.up))))
        return PluginHost(registry: .shared, vetting: vetting).load(.standard(paths: pluginPaths))
    }

    /// Loads plugins and warns on stderr about every file refused: for commands that only need the domains.
    func loadWarningAboutRejections() {
        for rejection in load().rejected {
            printError("axiom: plugin refused: \(rejection)")
        }
    }
}
