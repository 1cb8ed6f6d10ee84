// libFuzzer target: `ProblemReader.read` on any answer a peer could send, head and body.
//
// The input is an answer as text: the status's digits on the first line, then `name: value` field lines, then an
// empty line and the body. Reading either gives a peer's error whose code has a domain and a code, a wait of at most
// a day and a trace id within its bound, or throws `UnreadableAnswer`; it never traps. The error must also survive
// what an application does next: printing it and deciding it through the registry.

import Axiom
@_spi(Fuzzing) import AxiomHTTP
import Foundation
import FuzzSupport

private let registry = ErrorRegistry()
private let reader = ProblemReader(registry: registry)
private let now = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("FuzzProblemReader_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzProblemReader)
}

func fuzzProblemReader(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    let (response, body) = answer(input)
    do {
        let peer = try reader.read(response, body: body, now: now)
        check(!peer.code.domain.isEmpty && !peer.code.code.isEmpty, "read an empty code: \(peer.code)")
        if let wait = peer.retryAfter {
            check(wait >= .zero && wait <= DomainError.maximumRetryAfter, "read a wait of \(wait)")
        }
        if let traceId = peer.traceId {
            check(
                traceId.utf8.count <= ProblemReader.maximumTraceIdLength,
                "read a trace id of \(traceId.utf8.count) bytes")
        }
        check(peer.status >= 400, "read an answer of status \(peer.status)")
        _ = peer.error.description
        _ = registry.resolve(peer.error)
    } catch {
        _ = error.description
        _ = registry.descriptor(for: error)
    }
    return 0
}

/// The response head and body the input describes.
private func answer(_ input: [UInt8]) -> (HTTPResponse, Data) {
    let split = zip(input.indices, input.indices.dropFirst()).first { input[$0.0] == 0x0A && input[$0.1] == 0x0A }
    let head = split.map { input[..<$0.0] } ?? input[...]
    let body = split.map { Data(input[($0.1 + 1)...]) } ?? Data()
    let lines = head.split(separator: 0x0A, omittingEmptySubsequences: false)
    let digits = (lines.first ?? []).prefix { (0x30...0x39).contains($0) }.prefix(3)
    let status = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    var fields = HTTPFields()
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: 0x3A),
            let name = HTTPField.Name(String(decoding: line[..<colon], as: UTF8.self))
        else { continue }
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        fields.append(HTTPField(name: name, value: value))
    }
    return (HTTPResponse(status: .init(code: status), headerFields: fields), body)
}

/// `precondition` that also prints its message in a release build, so a crash input explains itself.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
