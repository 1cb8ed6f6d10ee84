#if canImport(Glibc)
import Glibc
#endif

/// Why installing the crash reporter or reading its directory failed.
public struct CrashReporterError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case cannotCreateDirectory(path: String, errno: Int32)
        case cannotUseDirectory(path: String, errno: Int32)
        case cannotPrepareThread(errno: Int32)
        case installFailed(step: String, errno: Int32)
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    /// The `errno` value the failing call left.
    public var errno: Int32 {
        switch code {
        case .cannotCreateDirectory(_, let errno), .cannotUseDirectory(_, let errno),
            .cannotPrepareThread(let errno), .installFailed(_, let errno):
            return errno
        }
    }

    public var description: String {
        switch code {
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
