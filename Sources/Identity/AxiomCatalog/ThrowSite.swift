/// Where an error was made: the file (`#fileID`) and line of the call that made it, for logs and crash reports.
///
/// It takes no part in equality or hashing: two errors that differ only in where they were thrown are the same
/// error. An error type that stores its throw site as a `ThrowSite` therefore keeps the `Equatable` and `Hashable`
/// the compiler synthesizes over its payload, as the framework's own errors do.
public struct ThrowSite: Hashable, Sendable, CustomStringConvertible {
    /// The file, as `#fileID` names it: `Module/File.swift`.
    public let file: String
    /// The line.
    public let line: UInt

    /// The site of the caller, or of the `file` and `line` given.
    package init(file: String = #fileID, line: UInt = #line) {
        self.file = file
        self.line = line
    }

    /// Always true: where an error was thrown does not make it another error.
    public static func == (lhs: Self, rhs: Self) -> Bool { true }

    /// Adds nothing: equal values must hash alike, and every site equals every other.
    public func hash(into hasher: inout Hasher) {}

    /// `file:line`.
    public var description: String { "\(file):\(line)" }
}
