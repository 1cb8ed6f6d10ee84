/// What one of the framework's errors of a growing set holds (`RawReportError`, `CrashReporterError`,
/// `SymbolicationError`, `PluginRejection`): the code a user matches on, the text a reader sees, which carries the
/// error's details, and where it was thrown.
///
/// Two facts are equal when their codes and texts are: the throw site takes no part (see ``ThrowSite``), so an error
/// that stores its facts keeps the `Equatable` and `Hashable` the compiler synthesizes. Each such error makes its
/// facts in one line per code, in a factory that records the caller's site, so a code is named in two places: its
/// static member of ``NamedCase`` and its factory.
package struct ErrorFacts<Owner>: Hashable, Sendable {
    /// What to match on.
    package let code: NamedCase<Owner>
    /// What went wrong, with the values that say so.
    package let text: String
    /// Where the error was made.
    package let throwSite: ThrowSite

    /// The facts of an error made at `file`:`line`.
    package init(_ code: NamedCase<Owner>, _ text: String, file: String, line: UInt) {
        self.code = code
        self.text = text
        self.throwSite = ThrowSite(file: file, line: line)
    }
}
