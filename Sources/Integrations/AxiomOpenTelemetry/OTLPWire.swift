/// The protobuf wire encoding, as much of it as an OTLP logs export request needs: varints, fixed64, and
/// length-delimited fields (strings, bytes, nested messages).
///
/// Field numbers follow the official OTLP definitions (`opentelemetry/proto/logs/v1/logs.proto`,
/// `common/v1/common.proto`, `resource/v1/resource.proto`, `collector/logs/v1/logs_service.proto`); the tests
/// decode what this writes with those definitions.
#if OpenTelemetry
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    /// A field key: the field number and its wire type.
    private mutating func key(_ field: Int, _ wireType: UInt8) {
        varint(UInt64(field) << 3 | UInt64(wireType))
    }

    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A varint field (wire type 0): int32, int64 (two's complement), uint32, enum, bool. Zero is the default
    /// and not written, unless `always` (a member of a `oneof` must be written to be set).
    mutating func uint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard always || value != 0 else { return }
        key(field, 0)
        varint(value)
    }

    /// A fixed64 field (wire type 1), little-endian. Zero is not written.
    mutating func fixed64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        key(field, 1)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// A length-delimited field (wire type 2) of raw bytes. Empty is not written, unless `always`.
    mutating func bytes(_ field: Int, _ value: some Collection<UInt8>, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        key(field, 2)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A string field: its UTF-8 bytes.
    mutating func string(_ field: Int, _ value: String, always: Bool = false) {
        bytes(field, Array(value.utf8), always: always)
    }

    /// A nested message, written by `body` into a writer of its own; written even when empty (a repeated
    /// element must be present to count).
    mutating func message(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        var nested = ProtobufWriter()
        body(&nested)
        key(field, 2)
        varint(UInt64(nested.bytes.count))
        bytes.append(contentsOf: nested.bytes)
    }
}
#endif
