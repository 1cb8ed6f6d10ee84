#if GRPC
import GRPCCore
import Tracing

/// Reads propagated trace context (W3C `traceparent` and `tracestate`, or whatever the bootstrapped instrument
/// propagates) from a request's metadata: the server side of ``MetadataInjector``.
package struct MetadataExtractor: Extractor {
    /// An extractor.
    package init() {}

    /// The first string value under `key` (gRPC metadata keys are lower case, and so are W3C's).
    package func extract(key: String, from carrier: Metadata) -> String? {
        carrier[stringValues: lowerCased(key)].first(where: { _ in true })
    }
}

/// Writes the current trace context into a request's metadata, replacing what the key held.
package struct MetadataInjector: Injector {
    /// An injector.
    package init() {}

    /// Sets `key` to `value` (lower cased: gRPC metadata keys are).
    package func inject(_ value: String, forKey key: String, into carrier: inout Metadata) {
        carrier.replaceOrAddString(value, forKey: lowerCased(key))
    }
}

/// `key` in lower case: the key itself when it is already (W3C's keys are, so a traced call makes no new string
/// for each of them).
private func lowerCased(_ key: String) -> String {
    key.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") || $0 >= 0x80 } ? key.lowercased() : key
}
#endif
