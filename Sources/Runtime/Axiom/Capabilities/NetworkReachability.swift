import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Network reachability: a TCP connection to `host:port` opens within `connectTimeout`.
///
/// The connect runs on a Dispatch worker, not on the cooperative pool, so a slow network never starves other
/// tasks; the socket is closed at once. Resolving `host` uses the system resolver.
public struct NetworkReachability: Capability {
    public let name: String
    /// The host to reach (a name or a numeric address).
    package let host: String
    /// Its TCP port.
    package let port: UInt16
    /// The longest a connect may take.
    package let connectTimeout: Duration

    /// Creates the capability (named `network` by default).
    public init(host: String, port: UInt16, connectTimeout: Duration = .seconds(3), name: String = "network") {
        self.name = name
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
    }

    public func validate() async throws {
        let host = host
        let port = port
        let name = name
        let timeoutMilliseconds = Int32(clamping: connectTimeout.wholeNanoseconds / 1_000_000)
        let failure: String? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.connect(host: host, port: port, timeout: timeoutMilliseconds))
            }
        }
        if let failure {
            throw CapabilityError.requirementNotMet(
                CapabilityRequirement(capability: name, detail: "TCP connect to \(host):\(port) (\(failure))"))
        }
    }

    /// Nil when a connection opened, else why not.
    static func connect(host: String, port: UInt16, timeout: Int32) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            return "cannot resolve: \(String(cString: gai_strerror(resolved)))"
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var current: UnsafeMutablePointer<addrinfo>? = first
        while let info = current {
            current = info.pointee.ai_next
            let fd = socket(
                info.pointee.ai_family,
                info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                info.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            defer { close(fd) }
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return nil }
            guard errno == EINPROGRESS else {
                lastError = String(cString: strerror(errno))
                continue
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            guard ready > 0 else {
                lastError = ready == 0 ? "timed out" : String(cString: strerror(errno))
                continue
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            if code == 0 { return nil }
            lastError = String(cString: strerror(code))
        }
        return lastError
    }
}
