#if GRPC
import GRPCCore
import GRPCProtobuf

/// An answer's `google.rpc.Status` details, serialized once but for the call's gRPC code and trace id, as
/// `ProblemDetails.Template` is an HTTP answer's body but for the request's path and trace.
///
/// Serializing the details (three messages, each packed into an `Any`) was most of the cost of answering an error
/// over gRPC, and all of it but the code and the trace id is the same for every call answered with the same texts.
/// The kept bytes are grpc-swift-protobuf's own serialization of the details without the trace id; a call's bytes
/// are them with the status's `code` field written before them and the `traceId` entry appended to the `ErrorInfo`'s
/// metadata (the lengths of the `ErrorInfo` and of its `Any` written again around it). A peer decodes the same
/// `google.rpc.Status` as from the details serialized whole: the same fields, in the same order, but for the order
/// of the metadata's entries, which protobuf leaves to the writer.
package struct StatusDetailsTemplate: Sendable {
    /// The status's `message` field, whole (empty when the message is).
    private let message: [UInt8]
    /// The `type_url` field of the `ErrorInfo`'s `Any`, whole.
    private let errorInfoType: [UInt8]
    /// The `ErrorInfo`'s fields: its reason, domain and metadata but the trace id.
    private let errorInfo: [UInt8]
    /// The details after the `ErrorInfo` (`RetryInfo`, `LocalizedMessage`), each a whole `details` field.
    private let rest: [UInt8]

    /// The template of a status with `message` and `details`, whose first is an `ErrorInfo` without the trace id;
    /// nil when it is not, or when the serialization is not laid out as a `google.rpc.Status` is (the answer is
    /// then serialized whole for every call).
    package init?(message: String, details: [ErrorDetails]) {
        guard details.first?.errorInfo != nil,
            let whole: [UInt8] = try? GoogleRPCStatus(code: .unknown, message: message, details: details)
                .serializedBytes(),
            let fields = Self.fields(whole[...])
        else { return nil }
        var message: [UInt8] = []
        var rest: [UInt8] = []
        var first: ArraySlice<UInt8>?
        for field in fields {
            switch (field.number, field.wire) {
            case (Self.codeField, Self.varint): continue  // written for each call
            case (Self.messageField, Self.lengthDelimited): message = Array(field.whole)
            case (Self.detailsField, Self.lengthDelimited):
                if first == nil { first = field.payload } else { rest += field.whole }
            default: return nil
            }
        }
        // The first detail's Any: its type URL, then its value, the ErrorInfo.
        guard let first, let any = Self.fields(first), any.count == 2,
            any[0].number == 1, any[0].wire == Self.lengthDelimited,
            Array(any[0].payload) == Array(Self.errorInfoTypeURL.utf8),
            any[1].number == 2, any[1].wire == Self.lengthDelimited
        else { return nil }
        self.message = message
        self.errorInfoType = Array(any[0].whole)
        self.errorInfo = Array(any[1].payload)
        self.rest = rest
    }

    /// The serialized status of a call answered with `code`, its `ErrorInfo` naming `traceId` when there is one.
    package func bytes(code: RPCError.Code, traceId: String?) -> [UInt8] {
        let key = GRPCStatusReader.traceIdKey.utf8
        let traceCount = traceId?.utf8.count ?? 0
        // The metadata entry: key (field 1) and value (field 2).
        let entryCount = 2 + key.count + 1 + Self.size(traceCount) + traceCount
        let infoCount = errorInfo.count + (traceId == nil ? 0 : 1 + Self.size(entryCount) + entryCount)
        let anyCount = errorInfoType.count + 1 + Self.size(infoCount) + infoCount
        let codeValue = UInt64(code.rawValue)

        var bytes: [UInt8] = []
        bytes.reserveCapacity(11 + message.count + 1 + Self.size(anyCount) + anyCount + rest.count)
        if codeValue != 0 {
            bytes.append(Self.tag(Self.codeField, Self.varint))
            Self.append(varint: codeValue, to: &bytes)
        }
        bytes += message
        bytes.append(Self.tag(Self.detailsField, Self.lengthDelimited))
        Self.append(varint: UInt64(anyCount), to: &bytes)
        bytes += errorInfoType
        bytes.append(Self.tag(2, Self.lengthDelimited))
        Self.append(varint: UInt64(infoCount), to: &bytes)
        bytes += errorInfo
        if let traceId {
            bytes.append(Self.tag(Self.metadataField, Self.lengthDelimited))
            Self.append(varint: UInt64(entryCount), to: &bytes)
            bytes.append(Self.tag(1, Self.lengthDelimited))
            bytes.append(UInt8(key.count))
            bytes += key
            bytes.append(Self.tag(2, Self.lengthDelimited))
            Self.append(varint: UInt64(traceCount), to: &bytes)
            bytes += traceId.utf8
        }
        bytes += rest
        return bytes
    }

    /// The type URL of an `ErrorInfo` packed into an `Any`.
    static let errorInfoTypeURL = "type.googleapis.com/google.rpc.ErrorInfo"

    // Field numbers of google.rpc.Status (code, message, details) and google.rpc.ErrorInfo (metadata), and the wire
    // types used here.
    private static let codeField: UInt64 = 1
    private static let messageField: UInt64 = 2
    private static let detailsField: UInt64 = 3
    private static let metadataField: UInt64 = 3
    private static let varint: UInt64 = 0
    private static let lengthDelimited: UInt64 = 2

    /// A field's key byte (every field here has a number below 16).
    private static func tag(_ number: UInt64, _ wire: UInt64) -> UInt8 { UInt8(number << 3 | wire) }

    /// The bytes `value` takes as a varint.
    private static func size(_ value: Int) -> Int {
        var value = UInt64(value)
        var count = 1
        while value >= 0x80 {
            value >>= 7
            count += 1
        }
        return count
    }

    private static func append(varint value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// One field of a serialized message: its number, wire type, bytes whole (key included), and its payload (a
    /// length-delimited field's content; a varint's bytes).
    private struct Field {
        var number: UInt64
        var wire: UInt64
        var whole: ArraySlice<UInt8>
        var payload: ArraySlice<UInt8>
    }

    /// The fields of a serialized message, or nil when it holds a wire type other than a varint or a length-delimited
    /// field, or is cut short.
    private static func fields(_ bytes: ArraySlice<UInt8>) -> [Field]? {
        var fields: [Field] = []
        var index = bytes.startIndex
        func readVarint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.endIndex, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        while index < bytes.endIndex {
            let start = index
            guard let key = readVarint() else { return nil }
            let payloadStart: Int
            switch key & 7 {
            case Self.varint:
                payloadStart = index
                guard readVarint() != nil else { return nil }
            case Self.lengthDelimited:
                guard let length = readVarint(), length <= UInt64(bytes.endIndex - index) else { return nil }
                payloadStart = index
                index += Int(length)
            default:
                return nil
            }
            fields.append(
                Field(
                    number: key >> 3, wire: key & 7, whole: bytes[start..<index], payload: bytes[payloadStart..<index]))
        }
        return fields
    }
}
#endif
