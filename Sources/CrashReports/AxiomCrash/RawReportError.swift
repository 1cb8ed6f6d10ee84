import AxiomCore

/// Why a raw crash report was rejected. Every reason says what was expected and what was found, so it can be
/// stored next to the rejected file.
///
/// The framework's shape for a growing set of errors: a value around its code and its text, made by factory
/// functions that record where it was thrown (``throwSite``), compared by code and text alone (the text carries
/// the values that tell one failure from another), and matched by ``code``, to which later versions may add codes
/// without breaking a `switch`. The registry identifies it as `axiom.crash/<code>`.
public struct RawReportError: IdentifiableError, Hashable, Sendable, CustomStringConvertible {
    /// Which check refused the report.
    public typealias Code = NamedCase<RawReportError>

    private let facts: ErrorFacts<RawReportError>
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public var throwSite: ThrowSite { facts.throwSite }

    private init(_ code: Code, _ text: String, file: String, line: UInt) {
        facts = ErrorFacts(code, text, file: file, line: line)
    }

    /// The file could not be opened or read.
    package static func unreadable(path: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.unreadable, "cannot read raw crash report \(path): \(errorText(errno))", file: file, line: line)
    }

    /// The file has no bytes at all.
    package static func empty(file: String = #fileID, line: UInt = #line) -> Self {
        Self(.empty, "raw crash report is empty", file: file, line: line)
    }

    /// The file is larger than any report the writer produces.
    package static func tooLarge(size: Int, limit: Int, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .tooLarge, "raw crash report is \(size) bytes, more than the \(limit) a report can have", file: file,
            line: line)
    }

    /// The file ends before `expected` bytes.
    package static func truncated(expected: Int, actual: Int, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .truncated, "raw crash report is truncated: \(actual) bytes, expected \(expected)", file: file,
            line: line)
    }

    /// The file does not start with the raw report magic.
    package static func badMagic(file: String = #fileID, line: UInt = #line) -> Self {
        Self(.badMagic, "not a raw crash report (bad magic)", file: file, line: line)
    }

    /// The format version is not one this reader knows.
    package static func unsupportedVersion(_ version: UInt16, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .unsupportedVersion,
            "raw crash report format version \(version) is not supported (this reader knows 1 and 2)", file: file,
            line: line)
    }

    /// The header length is smaller than the header of the version it claims.
    package static func badHeaderLength(_ length: Int, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.badHeaderLength, "raw crash report header length \(length) is too small", file: file, line: line)
    }

    /// The file is longer than the length its header declares.
    package static func trailingBytes(declared: Int, actual: Int, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .trailingBytes, "raw crash report declares \(declared) bytes but has \(actual)", file: file, line: line)
    }

    /// A count in the header is above what the writer ever writes.
    package static func countOutOfRange(
        field: String, value: Int, limit: Int, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(
            .countOutOfRange, "raw crash report \(field) is \(value), above the limit \(limit)", file: file,
            line: line)
    }

    /// The sections the header counts do not add up to the declared length.
    package static func countsBeyondFile(needed: Int, declared: Int, file: String = #fileID, line: UInt = #line) -> Self
    {
        Self(
            .countsBeyondFile,
            "raw crash report sections need \(needed) bytes but the report declares \(declared)", file: file,
            line: line)
    }

    /// The end marker is missing: the file was cut or overwritten.
    package static func missingTrailer(file: String = #fileID, line: UInt = #line) -> Self {
        Self(.missingTrailer, "raw crash report has no end marker", file: file, line: line)
    }

    /// A module record does not fit in the module section.
    package static func malformedModule(index: Int, reason: String, file: String = #fileID, line: UInt = #line) -> Self
    {
        Self(.malformedModule, "raw crash report module \(index) is malformed: \(reason)", file: file, line: line)
    }

    /// A tagged record (version 2) does not fit in the record section, or its payload is not of its type's shape.
    package static func malformedRecord(index: Int, reason: String, file: String = #fileID, line: UInt = #line) -> Self
    {
        Self(.malformedRecord, "raw crash report record \(index) is malformed: \(reason)", file: file, line: line)
    }

    /// Which check refused the report.
    public var code: Code { facts.code }

    /// The domain of the crash reporter's errors.
    public static let domain = "axiom.crash"

    /// `axiom.crash/<code>`.
    public var errorCode: ErrorCode { ErrorCode(Self.domain, code.name) }

    /// What was expected and what was found.
    public var description: String { facts.text }
}

extension NamedCase where Owner == RawReportError {
    /// The file could not be opened or read.
    public static var unreadable: Self { Self(name: "unreadable") }
    /// The file has no bytes at all.
    public static var empty: Self { Self(name: "empty") }
    /// The file is larger than any report the writer produces.
    public static var tooLarge: Self { Self(name: "tooLarge") }
    /// The file ends before `expected` bytes.
    public static var truncated: Self { Self(name: "truncated") }
    /// The file does not start with the raw report magic.
    public static var badMagic: Self { Self(name: "badMagic") }
    /// The format version is not one this reader knows.
    public static var unsupportedVersion: Self { Self(name: "unsupportedVersion") }
    /// The header length is smaller than the header of the version it claims.
    public static var badHeaderLength: Self { Self(name: "badHeaderLength") }
    /// The file is longer than the length its header declares.
    public static var trailingBytes: Self { Self(name: "trailingBytes") }
    /// A count in the header is above what the writer ever writes.
    public static var countOutOfRange: Self { Self(name: "countOutOfRange") }
    /// The sections the header counts do not add up to the declared length.
    public static var countsBeyondFile: Self { Self(name: "countsBeyondFile") }
    /// The end marker is missing: the file was cut or overwritten.
    public static var missingTrailer: Self { Self(name: "missingTrailer") }
    /// A module record does not fit in the module section.
    public static var malformedModule: Self { Self(name: "malformedModule") }
    /// A tagged record (version 2) does not fit in the record section, or its payload is not of its type's shape.
    public static var malformedRecord: Self { Self(name: "malformedRecord") }
}
