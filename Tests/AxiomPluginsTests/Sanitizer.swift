import Testing

/// Why the shipped Swift plugins are not loaded under ThreadSanitizer (`Sanitizers.thread`).
let swiftPluginsUnderThreadSanitizer: Comment = """
    under ThreadSanitizer the shipped Swift plugins, built instrumented too, need __tsan_external_write, \
    which the test host's static TSan runtime does not export, so dlopen refuses them
    """
