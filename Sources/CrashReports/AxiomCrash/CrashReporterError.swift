import AxiomCore

#if canImport(Glibc)
import Glibc
#endif

/// Why installing the crash reporter or reading its directory failed.
///
/// Shaped like ``RawReportError``: a code and a text, factory functions that record where it was thrown, a
/// ``code`` to match, and the identity `axiom.crash/<code>`.
public struct CrashReporterError: IdentifiableError, Hashable, Sendable, CustomStringConvertible {
    /// Which step failed.
    public typealias Code = NamedCase<CrashReporterError>

    private let facts: ErrorFacts<CrashReporterError>
    /// The `errno` value the failing call left.
    public let errno: Int32
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public var throwSite: ThrowSite { facts.throwSite }

    private init(_ code: Code, _ text: String, errno: Int32, file: String, line: UInt) {
        facts = ErrorFacts(code, text + ": " + errorText(errno), file: file, line: line)
        self.errno = errno
    }

    /// The report directory could not be created.
    static func cannotCreateDirectory(path: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .cannotCreateDirectory, "cannot create crash report directory \(path)", errno: errno, file: file, line: line
        )
    }

    /// The report directory exists but cannot be opened or written.
    static func cannotUseDirectory(path: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .cannotUseDirectory, "cannot open or write crash report directory \(path)", errno: errno, file: file,
            line: line)
    }

    /// The current thread could not get an alternate signal stack.
    static func cannotPrepareThread(errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(
            .cannotPrepareThread, "cannot give this thread an alternate signal stack", errno: errno, file: file,
            line: line)
    }

    /// A step of installing the handler failed.
    static func installFailed(step: String, errno: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        Self(.installFailed, "installing the crash handler failed at the \(step)", errno: errno, file: file, line: line)
    }

    /// Which step failed.
    public var code: Code { facts.code }

    /// `axiom.crash/<code>`.
    public var errorCode: ErrorCode { ErrorCode(RawReportError.domain, code.name) }

    /// What failed, with the system's text for ``errno``.
    public var description: String { facts.text }
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
