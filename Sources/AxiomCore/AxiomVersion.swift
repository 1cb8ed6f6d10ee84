/// The version of Axiom an application is built with.
///
/// `axiom --version` prints it.
public enum AxiomVersion {
    /// This release's version, as Semantic Versioning spells it: `1.0.0`.
    public static let current = "1.0.0"
}
