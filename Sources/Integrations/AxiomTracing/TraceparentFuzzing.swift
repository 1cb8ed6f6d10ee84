#if Tracing
/// What the fuzz target of the trace id reader (`Tests/Fuzz/Traceparent`) reaches besides the public API: not part of
/// the API. The ids it gives are promised as the documentation of `TraceIdentifiers` states them, not as Swift
/// declarations.
@_spi(Fuzzing) public enum TraceparentFuzzing {
    /// The ids of a W3C `traceparent` value, as `TraceIdentifiers` gives them (lower-case hex), or nil.
    @_spi(Fuzzing) public static func ids(traceparent: String) -> (traceID: String, spanID: String)? {
        TraceIdentifiers.fromTraceparent(traceparent).map { ($0.traceID, $0.spanID) }
    }

    /// The ids of a W3C `traceparent` value as the crash reporter is told them: the trace id's two words and the
    /// span id's, most significant first; or nil.
    @_spi(Fuzzing) public static func words(traceparent: String) -> (traceID: (UInt64, UInt64), spanID: UInt64)? {
        W3CIdentifiers(traceparent: traceparent).map { ($0.traceID, $0.spanID) }
    }

    /// The value of `text` when it is exactly `16 * count` ASCII hex digits (`count` 1 or 2), as two words, the most
    /// significant first; or nil.
    @_spi(Fuzzing) public static func words(hex text: String, count: Int) -> (UInt64, UInt64)? {
        W3CIdentifiers.words(hex: text, count: count)
    }
}
#endif
