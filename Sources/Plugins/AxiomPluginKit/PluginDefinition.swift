/// A plugin: its identity and its catalog, as Swift values: its codes in the catalog model the host's own domains are
/// declared in.
public struct PluginDefinition: Sendable {
    /// Reverse-DNS id, unique per process: `org.example.payments`. The host reports it as the source of
    /// every descriptor the plugin registers.
    package var id: String
    /// The plugin's own version.
    package var version: String
    /// The domains the plugin owns. No other source may register them.
    package var domains: [String]
    /// The codes, each with its texts.
    package var codes: [CodeDefinition]
    /// Texts per locale, then per key, beside the codes' own: `messages["tr"]["error.nwc.RATE_LIMITED"]`. A key
    /// given here keeps its text over a code's text for the same key.
    package var messages: [String: [String: String]]

    /// Creates a plugin definition.
    public init(
        id: String, version: String, domains: [String], codes: [CodeDefinition],
        messages: [String: [String: String]] = [:]
    ) {
        self.id = id
        self.version = version
        self.domains = domains
        self.codes = codes
        self.messages = messages
    }
}

/// A reason a plugin cannot start. Throw it (or any error) from the closure given to ``PluginExport``:
/// the host receives a failed status with this message instead of a catalog.
package struct PluginInitError: Error, Sendable, CustomStringConvertible {
    package var description: String
    /// Creates an init failure with a message for the host's diagnostics.
    package init(_ description: String) { self.description = description }
}

extension PluginDefinition {
    /// Every text of the catalog, per locale and key: ``messages`` and each code's texts under its keys
    /// (``CodeDefinition/messageKeys``). What the C descriptor carries.
    package var allMessages: [String: [String: String]] {
        var all = messages
        for code in codes { code.addTexts(to: &all) }
        return all
    }
}
