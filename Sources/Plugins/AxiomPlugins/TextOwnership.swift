import AxiomCore

/// Which message keys a plugin may ship texts for, so that no plugin can replace another's texts.
///
/// A plugin owns the keys under its own domains (`error.<domain>.…`) and the keys its own codes reference (message,
/// `<message>.title`, recovery), except those under a domain another registered source owns: a plugin for
/// `zz.texts` cannot ship a text for `error.nwc.RATE_LIMITED`, however its codes are written.
enum TextOwnership {
    /// Nil when every key the catalog ships a text for is its own; else what is not, for the refusal. The other
    /// sources are the registry's and those of `pending`, the catalogs of the same load registered before it.
    static func foreignKeys(
        of catalog: ErrorCatalog, in registry: ErrorRegistry, alsoRegistering pending: [ErrorCatalog] = []
    ) -> String? {
        let ownPrefixes = catalog.domains.map { "error.\($0)." }
        // Built only for a key outside the plugin's own domains (most catalogs have none).
        lazy var referenced: Set<String> = {
            var keys: Set<String> = []
            for descriptor in catalog.descriptors {
                keys.insert(descriptor.messageKey)
                keys.insert(descriptor.messageKey + ".title")
                if let key = descriptor.recoverySuggestionKey { keys.insert(key) }
            }
            return keys
        }()
        let others = (registry.catalogs + pending).filter { $0.source != catalog.source }.flatMap { other in
            other.domains.map { (prefix: "error.\($0).", source: other.source) }
        }
        var foreign: [(key: String, locale: String, owner: String?)] = []
        for (locale, table) in catalog.messages {
            for key in table.keys {
                if ownPrefixes.contains(where: key.hasPrefix) { continue }
                let owner = others.first { key.hasPrefix($0.prefix) }?.source
                if referenced.contains(key) && owner == nil { continue }
                foreign.append((key, locale, owner))
            }
        }
        guard !foreign.isEmpty else { return nil }
        foreign.sort { ($0.key, $0.locale) < ($1.key, $1.locale) }
        let shown = foreign.prefix(5).map { item in
            "'\(item.key)' (\(item.locale))" + (item.owner.map { ", which belongs to \($0)" } ?? "")
        }
        let more = foreign.count > 5 ? " and \(foreign.count - 5) more" : ""
        let domains = catalog.domains.map { "error.\($0)." }.joined(separator: ", ")
        return "plugin \(catalog.source) ships texts for keys that are not its own: \(shown.joined(separator: "; "))"
            + "\(more). A plugin may ship texts only for keys under its own domains (\(domains)) or keys its own "
            + "codes reference"
    }

    /// The catalogs whose English texts a plugin's keys may rely on: the framework's own (the built-in catalog and
    /// the `axiom.*` domains the framework registers), always registered before any plugin.
    @Sendable static func isFramework(_ catalog: ErrorCatalog) -> Bool {
        catalog.source == ErrorCatalog.builtinSource
            || (catalog.source.hasPrefix("axiom.") && catalog.domains == [catalog.source])
    }
}
