import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// Why mutexes announce themselves to ThreadSanitizer:
//
//   Mutex.withTrackedLock ──futex in the Swift runtime (not instrumented)──▶ TSan sees no synchronization
//
// so under `swift test --sanitize=thread` every value a mutex guards looks racy to TSan, and a test run reports
// races that cannot happen, now and then, whenever two threads happen to take one lock. `withTrackedLock` tells
// TSan that the critical section starts (acquire) and ends (release) on the mutex's address. Without TSan the
// hooks are absent and each call costs one test of a value read once.

/// ThreadSanitizer's annotation hooks, when its runtime is in the process.
package enum ThreadSanitizer {
    package typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// `__tsan_acquire`, or nil without TSan.
    package static let acquire: Hook? = hook("__tsan_acquire")
    /// `__tsan_release`, or nil without TSan.
    package static let release: Hook? = hook("__tsan_release")

    private static func hook(_ name: String) -> Hook? {
        dlsym(nil, name).map { unsafeBitCast($0, to: Hook.self) }
    }
}

/// Which sanitizer runtime is in the process (`swift build --sanitize=…`), for the tests that behave differently
/// under one.
package enum Sanitizers {
    /// ThreadSanitizer's runtime is linked in.
    package static let thread = dlsym(nil, "__tsan_init") != nil
    /// AddressSanitizer's runtime is linked in.
    package static let address = dlsym(nil, "__asan_init") != nil
    /// Either sanitizer's runtime is linked in: the process runs several times slower and holds more memory.
    package static var any: Bool { thread || address }
}

extension Mutex where Value: ~Copyable {
    /// `withLock`, with the critical section announced to ThreadSanitizer (see the top of this file). Use it
    /// instead of `withLock` in the framework.
    package borrowing func withTrackedLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        guard let acquire = ThreadSanitizer.acquire, let release = ThreadSanitizer.release else {
            return try withLock(body)
        }
        // The token is the mutex's own address, taken without touching the guarded value: an `inout` access to
        // the value before `acquire` would itself be an access TSan sees unordered (a CI run showed one).
        let token = withUnsafePointer(to: self) { UnsafeMutableRawPointer(mutating: $0) }
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            acquire(token)
            defer { release(token) }
            return try body(&value)
        }
    }
}
