#if Tracing
import Instrumentation
import Tracing

/// The trace and span ids of a service context, as the bootstrapped instrument propagates them.
///
/// Tracers keep their ids in their own types, so these are read the way a peer would read them: the instrument
/// injects the context as it would into a request's headers, and the ids come from a W3C `traceparent` entry
/// (OpenTelemetry's tracers, swift-otel among them; its hex digits read in either case and given lower-case) or
/// from entries whose keys end in `trace-id` and `span-id` (the in-memory tracer). A context without a span, or a
/// tracer that propagates neither, has none.
public struct TraceIdentifiers: Sendable, Hashable {
    /// The trace id: 32 lower-case hex digits for W3C tracers.
    public var traceID: String
    /// The span id: 16 lower-case hex digits for W3C tracers.
    public var spanID: String

    /// Creates ids.
    package init(traceID: String, spanID: String) {
        self.traceID = traceID
        self.spanID = spanID
    }

    /// The ids of the task's current context, if it has a span.
    public static var current: TraceIdentifiers? {
        guard let context = ServiceContext.current else { return nil }
        return of(context)
    }

    /// The ids `context` carries, if it has a span, as `instrument` (the bootstrapped one by default) injects them.
    package static func of(
        _ context: ServiceContext, injectedBy instrument: any Instrument = InstrumentationSystem.instrument
    ) -> TraceIdentifiers? {
        IdentifierCarrier(context, instrument: instrument).identifiers
    }

    /// Whether `context` has a span whose ids `instrument` (the bootstrapped one by default) injects: whether
    /// ``of(_:injectedBy:)`` is not nil, without making its strings.
    package static func hasSpan(
        _ context: ServiceContext, injectedBy instrument: any Instrument = InstrumentationSystem.instrument
    ) -> Bool {
        IdentifierCarrier(context, instrument: instrument).namesSpan
    }

    /// The ids of a W3C `traceparent` value, `00-<32 hex>-<16 hex>-<2 hex>`, unless either is all zeros.
    package static func fromTraceparent(_ value: String) -> TraceIdentifiers? {
        guard let ids = W3CIdentifiers(traceparent: value) else { return nil }
        return TraceIdentifiers(traceID: ids.traceIDHex, spanID: ids.spanIDHex)
    }
}

/// The W3C ids of a `traceparent` value as bytes: 16 of trace id, 8 of span id. Read from the value's UTF-8 in one
/// pass, with no intermediate strings: the crash reporter is told them for every request a traced service serves.
package struct W3CIdentifiers {
    /// The trace id's 16 bytes, most significant first.
    package var traceID: (UInt64, UInt64)
    /// The span id's 8 bytes, most significant first.
    package var spanID: UInt64

    /// The ids of `traceparent` (`<version>-<32 hex>-<16 hex>-<flags>…`), or nil when it has fewer than four
    /// fields, an id of another length or with a character that is not an ASCII hex digit, or an id of all zeros.
    package init?(traceparent: String) {
        var value = traceparent
        guard let ids = value.withUTF8({ Self.read($0) }) else { return nil }
        self = ids
    }

    private init(traceID: (UInt64, UInt64), spanID: UInt64) {
        self.traceID = traceID
        self.spanID = spanID
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> W3CIdentifiers? {
        let dash = UInt8(ascii: "-")
        guard let versionEnd = bytes.firstIndex(of: dash) else { return nil }
        // The version, a dash, 32 digits, a dash, 16 digits, and a dash before the flags.
        let traceStart = versionEnd + 1
        let spanStart = traceStart + 33
        guard bytes.count > spanStart + 16, bytes[spanStart - 1] == dash, bytes[spanStart + 16] == dash,
            let high = hex(bytes, from: traceStart, count: 16), let low = hex(bytes, from: traceStart + 16, count: 16),
            let span = hex(bytes, from: spanStart, count: 16), high | low != 0, span != 0
        else { return nil }
        return W3CIdentifiers(traceID: (high, low), spanID: span)
    }

    /// The value of `count` (at most 16) hex digits at `start`, or nil when one is not an ASCII hex digit.
    private static func hex(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in start..<(start + count) {
            let digit = bytes[index]
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value
    }

    /// The ids of a tracer that is not W3C's but whose ids have W3C's lengths: 32 and 16 hex digits (all zeros
    /// included), or nil.
    package init?(traceID: String, spanID: String) {
        guard let trace = Self.words(hex: traceID, count: 2), let span = Self.words(hex: spanID, count: 1) else {
            return nil
        }
        self.init(traceID: trace, spanID: span.1)
    }

    /// The value of `text` when it is exactly `16 * count` ASCII hex digits (`count` 1 or 2), as two words, the
    /// most significant first (zero for a single word's first), or nil.
    package static func words(hex text: String, count: Int) -> (UInt64, UInt64)? {
        var text = text
        return text.withUTF8 { bytes -> (UInt64, UInt64)? in
            guard count == 1 || count == 2, bytes.count == 16 * count,
                let low = hex(bytes, from: 16 * (count - 1), count: 16)
            else { return nil }
            if count == 1 { return (0, low) }
            guard let high = hex(bytes, from: 0, count: 16) else { return nil }
            return (high, low)
        }
    }

    /// The 8 bytes of `word`, most significant first.
    package static func bytes(_ word: UInt64) -> [UInt8] {
        withUnsafeBytes(of: word.bigEndian) { Array($0) }
    }

    /// The trace id, 32 lower-case hex digits.
    var traceIDHex: String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            Self.write(traceID.0, into: buffer, at: 0)
            Self.write(traceID.1, into: buffer, at: 16)
            return 32
        }
    }

    /// The span id, 16 lower-case hex digits.
    var spanIDHex: String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            Self.write(spanID, into: buffer, at: 0)
            return 16
        }
    }

    /// Writes `word` as 16 lower-case hex digits at `start`.
    private static func write(_ word: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        for index in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * index)) & 0xf
            buffer[start + index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }
    }
}

/// What the bootstrapped instrument injects that names a span: a W3C `traceparent`, or values under keys ending in
/// `trace-id` and `span-id` (the in-memory tracer's), the first of each. Nothing else it injects is kept.
struct IdentifierCarrier {
    var traceparent: String?
    var traceID: String?
    var spanID: String?

    init(_ context: ServiceContext, instrument: any Instrument) {
        instrument.inject(context, into: &self, using: Injector())
    }

    /// The ids as the instrument wrote them: a valid `traceparent`'s, lower-cased, else the `trace-id` and `span-id`
    /// values when neither is empty.
    var identifiers: TraceIdentifiers? {
        if let ids = traceparent.flatMap(TraceIdentifiers.fromTraceparent) { return ids }
        guard let traceID, let spanID, !traceID.isEmpty, !spanID.isEmpty else { return nil }
        return TraceIdentifiers(traceID: traceID, spanID: spanID)
    }

    /// Whether ``identifiers`` is not nil, making no string.
    var namesSpan: Bool {
        if let traceparent, W3CIdentifiers(traceparent: traceparent) != nil { return true }
        return traceID?.isEmpty == false && spanID?.isEmpty == false
    }

    /// The ids as words, for the crash reporter: a valid `traceparent`'s, else the `trace-id` and `span-id` values
    /// when they are hex of W3C's lengths (32 and 16 digits).
    var words: W3CIdentifiers? {
        if let words = traceparent.flatMap(W3CIdentifiers.init(traceparent:)) { return words }
        guard let traceID, let spanID else { return nil }
        return W3CIdentifiers(traceID: traceID, spanID: spanID)
    }

    struct Injector: Instrumentation.Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout IdentifierCarrier) {
            if key == "traceparent" {
                carrier.traceparent = carrier.traceparent ?? value
            } else if key.hasSuffix("trace-id") {
                carrier.traceID = carrier.traceID ?? value
            } else if key.hasSuffix("span-id") {
                carrier.spanID = carrier.spanID ?? value
            }
        }
    }
}
#endif
