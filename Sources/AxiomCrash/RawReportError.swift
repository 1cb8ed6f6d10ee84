/// Why a raw crash report was rejected. Every case says what was expected and what was
/// found, so the reason can be stored next to the rejected file.
public enum RawReportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, errno: Int32)
    /// The file has no bytes at all.
    case empty
    /// The file is larger than any report the writer produces.
    case tooLarge(size: Int, limit: Int)
    /// The file ends before `expected` bytes.
    case truncated(expected: Int, actual: Int)
    /// The file does not start with the raw report magic.
    case badMagic
    /// The format version is not one this reader knows.
    case unsupportedVersion(UInt16)
    /// The header length is smaller than the header of the version it claims.
    case badHeaderLength(Int)
    /// The file is longer than the length its header declares.
    case trailingBytes(declared: Int, actual: Int)
    /// A count in the header is above what the writer ever writes.
    case countOutOfRange(field: String, value: Int, limit: Int)
    /// The sections the header counts do not add up to the declared length.
    case countsBeyondFile(needed: Int, declared: Int)
    /// The end marker is missing: the file was cut or overwritten.
    case missingTrailer
    /// A module record does not fit in the module section.
    case malformedModule(index: Int, reason: String)
    /// A tagged record (version 2) does not fit in the record section, or its payload is not of its type's shape.
    case malformedRecord(index: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let errno):
            return "cannot read raw crash report \(path): \(errorText(errno))"
        case .empty:
            return "raw crash report is empty"
        case .tooLarge(let size, let limit):
            return "raw crash report is \(size) bytes, more than the \(limit) a report can have"
        case .truncated(let expected, let actual):
            return "raw crash report is truncated: \(actual) bytes, expected \(expected)"
        case .badMagic:
            return "not a raw crash report (bad magic)"
        case .unsupportedVersion(let version):
            return "raw crash report format version \(version) is not supported (this reader knows 1 and 2)"
        case .badHeaderLength(let length):
            return "raw crash report header length \(length) is too small"
        case .trailingBytes(let declared, let actual):
            return "raw crash report declares \(declared) bytes but has \(actual)"
        case .countOutOfRange(let field, let value, let limit):
            return "raw crash report \(field) is \(value), above the limit \(limit)"
        case .countsBeyondFile(let needed, let declared):
            return "raw crash report sections need \(needed) bytes but the report declares \(declared)"
        case .missingTrailer:
            return "raw crash report has no end marker"
        case .malformedModule(let index, let reason):
            return "raw crash report module \(index) is malformed: \(reason)"
        case .malformedRecord(let index, let reason):
            return "raw crash report record \(index) is malformed: \(reason)"
        }
    }
}
