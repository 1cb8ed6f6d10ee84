import Axiom
import AxiomPlugins

/// Loads the shipped plugins from beside the executable (where `swift build` puts them).
enum PluginScene {
    static func load() {
        Transcript.section("Plugins")
        let report = PluginHost.shared.load(.standard())
        if report.loaded.isEmpty {
            Transcript.line("no plugins found beside the executable: run `swift build` first to build them")
        }
        for plugin in report.loaded.sorted(by: { $0.id < $1.id }) {
            Transcript.line(
                "loaded \(plugin.id) \(plugin.version): \(plugin.domains.joined(separator: ", ")) (\(plugin.codeCount) codes)"
            )
        }
        for rejection in report.rejected { Transcript.line("refused \(rejection)") }

        let registry = ErrorRegistry.shared
        for (domain, code) in [("nwc", "RATE_LIMITED"), ("telnyx", "-32003"), ("rendio", "error.credit.insufficient")] {
            guard let descriptor = registry.descriptor(for: ErrorCode(domain, code)) else { continue }
            let retry = descriptor.retry.map { "retry \($0.maxAttempts)× after \($0.delay)" } ?? "never retried"
            Transcript.line(
                "\(domain) \(code) → \(descriptor.code.code): \(descriptor.category.rawValue), "
                    + "\(descriptor.disposition.rawValue), \(retry), from \(descriptor.source)")
        }
    }
}
