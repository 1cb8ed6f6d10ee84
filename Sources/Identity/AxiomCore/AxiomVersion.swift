/// The version of Axiom an application is built with.
///
/// Crash reports carry it: the crash reporter records it at install, so a report processed later, by a newer
/// `axiom` tool, still names the version that crashed (`axiomVersion` in the JSON report, `Axiom:` in the text).
/// `axiom --version` prints it too.
public enum AxiomVersion {
    /// This release's version, as Semantic Versioning spells it: `1.0.0` in the release, `1.1.0-dev` in a build
    /// of the commits on the way to the next one (CHANGELOG's newest entry says which).
    public static let current = "1.0.1-dev"
}
