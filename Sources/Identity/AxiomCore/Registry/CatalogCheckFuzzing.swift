/// The catalog check the plugin host runs before it registers a plugin's catalog, for the fuzz target of the plugin
/// descriptor reader (`Tests/Fuzz/PluginDescriptor`): not part of the API, which holds the check back for a 1.x release.
@_spi(Fuzzing) public enum CatalogCheckFuzzing {
    /// Checks `catalog` as the plugin host does and describes what it found; never traps.
    @_spi(Fuzzing) public static func check(_ catalog: ErrorCatalog) -> String { "\(CatalogCheck.check(catalog))" }
}
