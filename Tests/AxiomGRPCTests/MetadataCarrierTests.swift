#if GRPC
import AxiomGRPC
import GRPCCore
import Testing

/// Trace context travels in gRPC metadata, whose keys are lower case, whatever case the instrument asks with.
@Suite struct MetadataCarrierTests {
    @Test func injectedKeysAreLowerCaseAndReplaceWhatTheyHeld() {
        var metadata: Metadata = ["traceparent": "old", "x-other": "kept"]
        MetadataInjector().inject("00-new-01", forKey: "traceparent", into: &metadata)
        MetadataInjector().inject("vendor=1", forKey: "TraceState", into: &metadata)
        #expect(Array(metadata[stringValues: "traceparent"]) == ["00-new-01"])
        #expect(Array(metadata[stringValues: "tracestate"]) == ["vendor=1"])
        #expect(metadata.map(\.key).sorted() == ["traceparent", "tracestate", "x-other"])
        #expect(Array(metadata[stringValues: "x-other"]) == ["kept"])
    }

    @Test func extractionFindsTheLowerCaseKeyWhateverCaseItIsAskedWith() {
        let metadata: Metadata = ["traceparent": "00-first-01", "tracestate": "vendor=1"]
        #expect(MetadataExtractor().extract(key: "traceparent", from: metadata) == "00-first-01")
        #expect(MetadataExtractor().extract(key: "TRACEPARENT", from: metadata) == "00-first-01")
        #expect(MetadataExtractor().extract(key: "TraceState", from: metadata) == "vendor=1")
        #expect(MetadataExtractor().extract(key: "baggage", from: metadata) == nil)
    }
}
#endif
