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

    /// The end marker is missing: the file was cut or overwritten.
    package static func truncatedBeforeEndMarker(file: String = #fileID, line: UInt = #line) -> Self {
        Self(.truncated, "raw crash report is truncated: it has no end marker", file: file, line: line)
    }

    /// The file does not start with the raw report magic.
    package static func notAReport(file: String = #fileID, line: UInt = #line) -> Self {
        Self(.notAReport, "not a raw crash report (bad magic)", file: file, line: line)
    }

    /// The format version is not one this reader knows.
    package static func unsupportedVersion(_ version: UInt16, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .unsupportedVersion,
            "raw crash report format version \(version) is not supported (this reader knows 1 and 2)", file: file,
            line: line)
    }

    /// The header length is smaller than the header of the version it claims.
    package static func malformed(headerLength: Int, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.malformed, "raw crash report header length \(headerLength) is too small", file: file, line: line)
    }

    /// The file is longer than the length its header declares.
    package static func malformed(
        declaredLength: Int, actualLength: Int, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(
            .malformed, "raw crash report declares \(declaredLength) bytes but has \(actualLength)", file: file,
            line: line)
    }

    /// A count in the header is above what the writer ever writes.
    package static func malformed(
        count field: String, value: Int, limit: Int, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.malformed, "raw crash report \(field) is \(value), above the limit \(limit)", file: file, line: line)
    }

    /// The sections the header counts do not add up to the declared length.
    package static func malformed(
        sectionsNeed needed: Int, declaredLength: Int, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(
            .malformed,
            "raw crash report sections need \(needed) bytes but the report declares \(declaredLength)", file: file,
            line: line)
    }

    /// A module record does not fit in the module section.
    package static func malformed(
        module index: Int, reason: String, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.malformed, "raw crash report module \(index) is malformed: \(reason)", file: file, line: line)
    }

    /// A tagged record (version 2) does not fit in the record section, or its payload is not of its type's shape.
    package static func malformed(
        record index: Int, reason: String, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.malformed, "raw crash report record \(index) is malformed: \(reason)", file: file, line: line)
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
    /// The file was cut: it ends before the length its header declares, or before its end marker.
    public static var truncated: Self { Self(name: "truncated") }
    /// The file does not start with the raw report magic: it is not a raw crash report.
    public static var notAReport: Self { Self(name: "notAReport") }
    /// The format version is not one this reader knows.
    public static var unsupportedVersion: Self { Self(name: "unsupportedVersion") }
    /// The report's structure does not add up: a header length too small for its version, bytes past the declared
    /// length, a count above what the writer writes, sections that do not fill the declared length, or a module or
    /// record that does not fit its section. The description says which.
    public static var malformed: Self { Self(name: "malformed") }
}
