// libFuzzer target: `DomainError.decode` on any bytes a remote peer could send.
//
// Decoding either returns an error with a non-empty code or throws `DecodingFailure`; it never traps. A decoded
// error must also survive what an application does next: printing it and looking it up in a registry.

import Axiom
import Foundation

private let registry = ErrorRegistry()

@_cDecl("LLVMFuzzerTestOneInput")
public func fuzzDomainError(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    do {
        let error = try DomainError.decode(domain: "fuzz", json: data)
        precondition(!error.errorCode.code.isEmpty, "decoded an empty code")
        if let wait = error.retryAfter { precondition(wait >= .zero, "decoded a negative Retry-After") }
        _ = error.description
        _ = registry.descriptor(for: error)
    } catch {
        _ = error.description
    }
    return 0
}
