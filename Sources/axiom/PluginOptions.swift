import ArgumentParser
import AxiomPlugins
import Foundation

/// `--plugin-path DIR`, shared by the commands that need plugin domains.
struct PluginOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp(
            "A plugin file or a directory of plugins; repeatable. Searched after the executable's directory (whose plugins take precedence) and before AXIOM_PLUGIN_PATH.",
            valueName: "path"))
    var pluginPaths: [String] = []

    /// Loads the plugins of the standard search into the shared registry.
    func load() -> PluginLoadReport {
        PluginHost.shared.load(.standard(paths: pluginPaths))
    }

    /// Loads plugins and warns on stderr about every file refused: for commands that only need the domains.
    func loadWarningAboutRejections() {
        for rejection in load().rejected {
            printError("axiom: plugin refused: \(rejection)")
        }
    }
}
