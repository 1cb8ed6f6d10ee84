// libFuzzer target: `DomainError.decode` on any bytes a remote peer could send.
//
// Decoding either returns an error with a non-empty code or throws `DecodingFailure`; it never traps. A decoded
// error must also survive what an application does next: printing it and looking it up in a registry.

import Axiom
import Foundation

private let registry = ErrorRegistry()

@_cdecl("LLVMFuzzerTestOneInput")
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

// SwiftPM links an executable's `main` to `<Module>_main` (so that tests can link the executable's code), and
// a fuzz target has no main of its own: this one runs libFuzzer's driver on the target.
@_cdecl("FuzzDomainError_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzDomainError)
}

/// libFuzzer's entry for a program that brings its own main; no header declares it to Swift:
/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
