// libFuzzer target: `GRPCStatusReader.read` on any `grpc-status-details-bin` a peer could send.
//
// The input's first byte picks the gRPC code (modulo the 17 codes), the rest is the serialized `google.rpc.Status`.
// Reading it gives a peer's error whose code has a domain and a code, a wait of at most a day and a trace id within
// its bound, or throws `UnreadableAnswer`; it never traps. The error must also survive what an application does
// next: printing it and deciding it through the registry, inside the `RPCError` the client interceptor throws.
// The same bytes, read as a code, give an `ErrorInfo` reason that AIP-193 accepts and that is its own reason.

import Axiom
@_spi(Fuzzing) import AxiomGRPC
@_spi(Fuzzing) import AxiomHTTP
import FuzzSupport

private let registry = ErrorRegistry()
private let interceptor = ClientErrorInterceptor(registry: registry)

@_cdecl("FuzzGRPCStatusReader_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzGRPCStatusReader)
}

func fuzzGRPCStatusReader(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    let reason = GRPCStatusReaderFuzzing.reason(for: String(decoding: input, as: UTF8.self))
    check(isAIP193Reason(reason), "the reason \(reason) does not match [A-Z][A-Z0-9_]+[A-Z0-9] in 63 characters")
    check(GRPCStatusReaderFuzzing.reason(for: reason) == reason, "the reason \(reason) is not its own reason")
    guard let first = input.first, let code = RPCError.Code(Status.Code(rawValue: Int(first % 17))!) else {
        return 0
    }
    let error = RPCError(
        code: code, message: "m", metadata: [GRPCStatusReaderFuzzing.detailsKey: .binary(Array(input.dropFirst()))])
    do {
        guard let peer = try interceptor.reader.read(error) else {
            fatalError("details present, but read as none")
        }
        check(!peer.code.domain.isEmpty && !peer.code.code.isEmpty, "read an empty code: \(peer.code)")
        if let wait = peer.retryAfter {
            check(wait >= .zero && wait <= DomainError.maximumRetryAfter, "read a wait of \(wait)")
        }
        if let traceId = peer.traceId {
            check(
                traceId.utf8.count <= ProblemReader.maximumTraceIdLength,
                "read a trace id of \(traceId.utf8.count) bytes")
        }
        check((400...599).contains(peer.status), "read an answer of status \(peer.status)")
        let carried = RPCError(code: code, message: "m", metadata: error.metadata, cause: peer.error)
        _ = carried.description
        let (identity, _) = registry.resolve(carried)
        check(identity.code == peer.code, "the RPCError is not the peer's code")
    } catch {
        _ = error.description
        _ = registry.descriptor(for: error)
    }
    return 0
}

/// Whether `reason` matches `[A-Z][A-Z0-9_]+[A-Z0-9]` and has at most 63 characters.
private func isAIP193Reason(_ reason: String) -> Bool {
    let bytes = Array(reason.utf8)
    let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
    let digit = UInt8(ascii: "0")...UInt8(ascii: "9")
    guard (3...63).contains(bytes.count), upper.contains(bytes[0]) else { return false }
    guard let last = bytes.last, upper.contains(last) || digit.contains(last) else { return false }
    return bytes.allSatisfy { upper.contains($0) || digit.contains($0) || $0 == UInt8(ascii: "_") }
}

/// `precondition` that also prints its message in a release build, so a crash input explains itself.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
