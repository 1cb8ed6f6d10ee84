import Axiom
import AxiomTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fresh registry holding a test copy of the NWC catalog (its codes and retry policies), so tests never share `.shared`.
func nwcRegistry() throws -> ErrorRegistry {
    let registry = ErrorRegistry()
    func code(_ name: String) -> ErrorCode { ErrorCode("nwc", name) }
    let never: RetryPolicy? = nil
    let descriptors = [
        ErrorDescriptor(
            code: code("RATE_LIMITED"), category: .api, disposition: .recover,
            retry: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(60))),
        ErrorDescriptor(code: code("INSUFFICIENT_BALANCE"), category: .credit, retry: never),
        ErrorDescriptor(code: code("UNAUTHORIZED"), category: .auth, retry: never),
        ErrorDescriptor(code: code("NOT_IMPLEMENTED"), category: .api, retry: never),
        ErrorDescriptor(
            code: code("INTERNAL"), category: .api, disposition: .recover,
            retry: RetryPolicy(maxAttempts: 4, backoff: .exponential, delay: .seconds(1))),
        ErrorDescriptor(
            code: code("PAYMENT_FAILED"), category: .api, disposition: .recover,
            retry: RetryPolicy(
                maxAttempts: 6, backoff: .exponential, delay: .seconds(1), maxDelay: .seconds(10),
                jitter: true)),
    ]
    try registry.register(ErrorCatalog(source: "test.nwc", domains: ["nwc"], descriptors: descriptors))
    return registry
}

func nwc(_ code: String, retryAfter: Duration? = nil) -> DomainError {
    DomainError(domain: "nwc", code: code, message: "test", retryAfter: retryAfter)
}

/// Counts calls from any task.
final class CallCounter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A switch a test flips while code under test reads it.
final class Flag: Sendable {
    private let value: Atomic<Bool>
    init(_ initial: Bool) { value = Atomic(initial) }
    var isOn: Bool { value.load(ordering: .relaxed) }
    func set(_ on: Bool) { value.store(on, ordering: .relaxed) }
}

extension ManualClock {
    /// Lets `count` sleeps happen one after the other: waits for each sleeper, then wakes it.
    func drive(_ count: Int) async {
        for _ in 0..<count {
            await waitForSleepers(1)
            advanceToNextDeadline()
        }
    }
}

/// A TCP listener on 127.0.0.1 with a kernel-chosen port; closed on `close()`.
final class LoopbackListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            _ = Glibc.close(fd)
            throw ListenerError()
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: address.sin_port)
    }

    func close() { _ = Glibc.close(fd) }

    struct ListenerError: Error {}
}

/// A directory under /tmp removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/axiom-runtime-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: made!)
    }

    func write(_ name: String, _ text: String) {
        let file = fopen(path + "/" + name, "w")!
        fputs(text, file)
        fclose(file)
    }

    func remove() {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}
