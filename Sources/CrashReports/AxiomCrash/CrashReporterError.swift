import AxiomCore

#if canImport(Glibc)
import Glibc
#endif

/// Why installing the crash reporter or reading its directory failed.
///
/// Shaped like ``RawReportError``: a private reason, factory functions that record where it was thrown, a
/// ``code`` to match, and the identity `axiom.crash/<code>`.
public struct CrashReporterError: IdentifiableError, Hashable, Sendable, CustomStringConvertible {
    /// Which step failed.
    public typealias Code = NamedCase<CrashReporterError>

    private enum Backing: Hashable, Sendable {
        case cannotCreateDirectory(path: String, errno: Int32)
        case cannotUseDirectory(path: String, errno: Int32)
        case cannotPrepareThread(errno: Int32)
        case installFailed(step: String, errno: Int32)
    }

    private let backing: Backing
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public let throwSite: ThrowSite
    /// The file that threw it (`#fileID`).
    package var file: String { throwSite.file }
    /// The line that threw it.
    package var line: UInt { throwSite.line }

    private init(_ backing: Backing, file: String, line: UInt) {
        self.backing = backing
        self.throwSite = ThrowSite(file: file, line: line)
    }

    /// The report directory could not be created.
    static func cannotCreateDirectory(path: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.cannotCreateDirectory(path: path, errno: errno), file: file, line: line)
    }

    /// The report directory exists but cannot be opened or written.
    static func cannotUseDirectory(path: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.cannotUseDirectory(path: path, errno: errno), file: file, line: line)
    }

    /// The current thread could not get an alternate signal stack.
    static func cannotPrepareThread(errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.cannotPrepareThread(errno: errno), file: file, line: line)
    }

    /// A step of installing the handler failed.
    static func installFailed(step: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.installFailed(step: step, errno: errno), file: file, line: line)
    }

    /// Which step failed.
    public var code: Code {
        switch backing {
        case .cannotCreateDirectory: .cannotCreateDirectory
        case .cannotUseDirectory: .cannotUseDirectory
        case .cannotPrepareThread: .cannotPrepareThread
        case .installFailed: .installFailed
        }
    }

    /// `axiom.crash/<code>`.
    public var errorCode: ErrorCode { ErrorCode(RawReportError.domain, code.name) }

    /// The `errno` value the failing call left.
    public var errno: Int32 {
        switch backing {
        case .cannotCreateDirectory(_, let errno), .cannotUseDirectory(_, let errno),
            .cannotPrepareThread(let errno), .installFailed(_, let errno):
            return errno
        }
    }

    public var description: String {
        switch backing {
        case .cannotCreateDirectory(let path, let errno):
            return "cannot create crash report directory \(path): \(errorText(errno))"
        case .cannotUseDirectory(let path, let errno):
            return "cannot open or write crash report directory \(path): \(errorText(errno))"
        case .cannotPrepareThread(let errno):
            return "cannot give this thread an alternate signal stack: \(errorText(errno))"
        case .installFailed(let step, let errno):
            return "installing the crash handler failed at the \(step): \(errorText(errno))"
        }
    }
}

func errorText(_ errno: Int32) -> String {
    guard let text = strerror(errno) else { return "errno \(errno)" }
    return String(cString: text) + " (errno \(errno))"
}

extension NamedCase where Owner == CrashReporterError {
    /// The report directory could not be created.
    public static var cannotCreateDirectory: Self { Self(name: "cannotCreateDirectory") }
    /// The report directory exists but cannot be opened or written.
    public static var cannotUseDirectory: Self { Self(name: "cannotUseDirectory") }
    /// The current thread could not get an alternate signal stack.
    public static var cannotPrepareThread: Self { Self(name: "cannotPrepareThread") }
    /// A step of installing the handler failed.
    public static var installFailed: Self { Self(name: "installFailed") }
}
