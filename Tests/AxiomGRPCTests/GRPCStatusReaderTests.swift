#if GRPC
import Axiom
import AxiomGRPC
import AxiomHTTP
import Foundation
import GRPCCore
import GRPCProtobuf
import SwiftProtobuf
import Testing

@testable import AxiomCore

/// Serialized `google.rpc.Status` details.
func details(_ code: RPCError.Code, _ details: [ErrorDetails]) throws -> [UInt8] {
    try GoogleRPCStatus(code: code, message: "m", details: details).serializedBytes()
}

@Suite("Reading google.rpc.Status details from a peer")
struct GRPCStatusReaderTests {
    let reader = GRPCStatusReader(registry: ErrorRegistry())

    @Test("details without ErrorInfo are identified by the code's status; types it does not read are passed over")
    func withoutErrorInfo() throws {
        var unknown = Google_Protobuf_Any()
        unknown.typeURL = "type.googleapis.com/peer.Custom"
        unknown.value = Data([1, 2, 3])
        let bytes = try details(.notFound, [.any(unknown), .debugInfo(stack: ["a"], detail: "b")])
        let peer = try reader.read(details: bytes, code: .notFound, message: "no such order")
        #expect(peer.code == ErrorCode("axiom.http", "404"))
        #expect(peer.status == 404)
        #expect(peer.detail == "no such order")
        #expect(peer.retryAfter == nil)
    }

    @Test("a wait beyond a day is a day; a negative one is dropped with its reason")
    func waits() throws {
        let long = try reader.read(
            details: details(.unavailable, [.retryInfo(delay: .seconds(86_400 * 3650))]), code: .unavailable,
            message: "")
        #expect(long.retryAfter == .seconds(86_400))
        let negative = try reader.read(
            details: details(.unavailable, [.retryInfo(delay: .seconds(-5))]), code: .unavailable, message: "")
        #expect(negative.retryAfter == nil)
        #expect(negative.error.metadata[DomainError.invalidRetryAfterKey] == "negative")
    }

    @Test(
        "hostile details are an UnreadableAnswer, never a trap",
        arguments: [
            [UInt8](repeating: 0x0A, count: 70_000),  // larger than 64 KiB
            [0xFF, 0xFF, 0xFF, 0xFF],  // not protobuf
            [0x1A, 0x09, 0x0A, 0x03, 0x74, 0x79, 0x70],  // a detail cut short
        ])
    func hostileBytes(_ bytes: [UInt8]) {
        #expect(throws: UnreadableAnswer.self) {
            try reader.read(details: bytes, code: .internalError, message: "")
        }
    }

    @Test(
        "an ErrorInfo that is not a code is an UnreadableAnswer",
        arguments: [("", "R"), ("d", ""), ("a/b", "R"), ("d", "R\u{7}"), (String(repeating: "d", count: 200), "R")])
    func invalidCode(_ domain: String, _ reason: String) throws {
        let bytes = try details(.aborted, [.errorInfo(reason: reason, domain: domain)])
        #expect(throws: UnreadableAnswer.self) {
            try reader.read(details: bytes, code: .aborted, message: "")
        }
    }

    @Test("only a valid trace id and status of the ErrorInfo's metadata are kept, whatever its size")
    func hostileMetadata() throws {
        var metadata = ["traceId": String(repeating: "f", count: 10_000), "status": "9999"]
        for index in 0..<1000 { metadata["k\(index)"] = String(repeating: "v", count: 30) }
        let peer = try reader.read(
            details: details(.aborted, [.errorInfo(reason: "R", domain: "d", metadata: metadata)]), code: .aborted,
            message: "")
        #expect(peer.traceId == nil)
        #expect(peer.status == 409)
        #expect(peer.error.metadata.count == 2)  // grpcCode and status
    }

    @Test(
        "a code's ErrorInfo reason is UPPER_SNAKE_CASE, as AIP-193 asks",
        arguments: [
            ("outOfStock", "OUT_OF_STOCK"), ("RATE_LIMITED", "RATE_LIMITED"), ("HTTPError", "HTTP_ERROR"),
            ("db.internalError", "DB_INTERNAL_ERROR"), ("404", "CODE_404"), ("ok", "CODE_OK"), ("v2Token", "V2_TOKEN"),
            ("card-declined", "CARD_DECLINED"), ("stokta_yok ", "STOKTA_YOK"), ("ödemeReddedildi", "DEME_REDDEDILDI"),
            ("", "CODE"),
            (String(repeating: "ab", count: 40), String(repeating: "AB", count: 40).prefix(63).description),
        ])
    func reasons(_ code: String, _ reason: String) {
        #expect(GRPCStatusReader.reason(for: code) == reason)
    }

    @Test("every code's reason matches AIP-193's pattern and length, and a reason is its own reason")
    func reasonsAreValid() throws {
        let pattern = try Regex("^[A-Z][A-Z0-9_]+[A-Z0-9]$")
        var generator = SplitMix64(seed: 193)
        let alphabet = Array("aZ09_.-/ ç€".unicodeScalars)
        for length in 0..<100 {
            var code = String.UnicodeScalarView()
            for _ in 0..<(length % 70) { code.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
            let reason = GRPCStatusReader.reason(for: String(code))
            #expect(reason.wholeMatch(of: pattern) != nil && reason.count <= 63, "\(String(code)) -> \(reason)")
            #expect(GRPCStatusReader.reason(for: reason) == reason, "\(reason)")
        }
    }

    @Test("the identity is the metadata's code when its reason is the reason; else the reason as it stands")
    func identityFromReasonAndCode() throws {
        func identity(_ reason: String, code: String?) throws -> ErrorCode {
            let metadata = code.map { [GRPCStatusReader.codeKey: $0] } ?? [:]
            let bytes = try details(
                .failedPrecondition, [.errorInfo(reason: reason, domain: "shop", metadata: metadata)])
            return try reader.read(details: bytes, code: .failedPrecondition, message: "").code
        }
        #expect(try identity("OUT_OF_STOCK", code: "outOfStock") == ErrorCode("shop", "outOfStock"))
        // Another service's metadata key of the same name, that is not this reason's code.
        #expect(try identity("STOCKOUT", code: "404") == ErrorCode("shop", "STOCKOUT"))
        // A reason without the code (an AIP-193 service, or an Axiom peer that sent the code as the reason).
        #expect(try identity("STOCKOUT", code: nil) == ErrorCode("shop", "STOCKOUT"))
        #expect(try identity("outOfStock", code: nil) == ErrorCode("shop", "outOfStock"))
    }

    @Test("10,000 distinct codes from peers leave the registry's tables bounded")
    func peerCodesStayBounded() throws {
        let registry = ErrorRegistry()
        let interceptor = ClientErrorInterceptor(registry: registry)
        let pipeline = ErrorPipeline(
            layer: .client, escalatesTo: nil, configuration: PipelineConfiguration(registry: registry)
        ) { Ignore(.any) }
        var generator = SplitMix64(seed: 10_000)
        for index in 0..<10_000 {
            let reason = "C\(index)" + String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 36)
            let bytes = try details(.aborted, [.errorInfo(reason: reason, domain: "peer")])
            let error = RPCError(code: .aborted, message: "x", metadata: [GRPCStatusReader.detailsKey: .binary(bytes)])
            let peer = try #require(try interceptor.reader.read(error))
            #expect(peer.descriptor == nil)
            _ = try pipeline.decide(
                RPCError(code: .aborted, message: "x", metadata: error.metadata, cause: peer.error), operation: "call")
        }
        let table = registry.fastTableCounts
        #expect(table.misses <= ErrorRegistry.rememberedMissLimit)
        #expect(table.entries <= ErrorRegistry.rememberedMissLimit + 64)
    }
}
#endif
