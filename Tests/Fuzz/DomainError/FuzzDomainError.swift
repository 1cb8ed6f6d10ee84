// libFuzzer target: `DomainError.decode` on any bytes a remote peer could send.
//
// Decoding either returns an error with a non-empty code or throws `DecodingFailure`; it never traps. A decoded
// error must also survive what an application does next: printing it and looking it up in a registry.

import Axiom
import Foundation
import FuzzSupport

private let registry = ErrorRegistry()

@c(FuzzDomainError_main)
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { bytes, count in
        let data = Data(bytes: bytes, count: count)
        do {
            let error = try DomainError.decode(domain: "fuzz", json: data)
            precondition(!error.errorCode.code.isEmpty, "decoded an empty code")
            if let wait = error.retryAfter { precondition(wait >= .zero, "decoded a negative Retry-After") }
            _ = error.description
            _ = registry.descriptor(for: error)
        } catch {
            _ = String(describing: error)
        }
        return 0
    }
}
