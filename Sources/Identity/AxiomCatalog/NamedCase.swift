/// A name from an open set that belongs to one type: the code of one of the framework's errors within its type
/// (`PluginRejection.Code`), a kind, a step, a signal.
///
/// A struct rather than an enum, so that a 1.x release may add a name without breaking anybody's `switch` (a
/// `switch` over one needs a `default`). The names of a type are static members of its alias, matched as enum
/// cases are: `rejection.code == .notFound`, `case .notFound:`. `Owner` only keeps the sets of different types
/// apart: a `PluginRejection.Code` is never equal to, nor assignable to, a `RawReportError.Code`.
public struct NamedCase<Owner>: Hashable, Sendable, CustomStringConvertible {
    /// The name, as it is written in error codes, JSON and logs.
    public let name: String

    /// The name.
    public var description: String { name }

    /// A name of the set. The framework's own types declare theirs.
    package init(name: String) { self.name = name }
}
