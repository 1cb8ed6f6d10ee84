import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Which sanitizer, if any, this test process runs under (`swift test --sanitize=…`).
enum Sanitizer {
    /// ThreadSanitizer's runtime is linked in.
    static let thread = dlsym(nil, "__tsan_init") != nil

    /// Why the shipped Swift plugins are not loaded under ThreadSanitizer.
    static let swiftPluginsReason: Comment = """
        under ThreadSanitizer the shipped Swift plugins, built instrumented too, need __tsan_external_write, \
        which the test host's static TSan runtime does not export, so dlopen refuses them
        """
}
