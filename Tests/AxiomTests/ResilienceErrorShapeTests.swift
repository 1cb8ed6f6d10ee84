import Axiom
import Testing

/// The resilience errors are single-code structs of the framework's shape: fields for the payload, the throw site
/// in `file` and `line`, and equality that compares the fields.
@Suite("Resilience errors' shape")
struct ResilienceErrorShapeTests {
    @Test("CircuitOpenError records where it was made and compares its fields")
    func circuitOpen() {
        let line: UInt = #line + 1
        let error = CircuitOpenError(key: "wallet", state: .open, retryAfter: .seconds(3))
        #expect(error.errorCode == ErrorCode("axiom.resilience", "circuitOpen"))
        #expect(error.throwSite.file == #fileID)
        #expect(error.throwSite.line == line)
        #expect(error == CircuitOpenError(key: "wallet", state: .open, retryAfter: .seconds(3), file: "x", line: 1))
        #expect(error != CircuitOpenError(key: "wallet", state: .isolated, retryAfter: nil))
    }

    @Test("TimeoutError records where it was made; its scope names its code")
    func timeout() {
        let line: UInt = #line + 1
        let whole = TimeoutError(operation: "sync", limit: .seconds(1))
        #expect(whole.errorCode == ErrorCode("axiom.resilience", "timeout"))
        #expect(whole.throwSite.file == #fileID)
        #expect(whole.throwSite.line == line)
        let attempt = TimeoutError(operation: "sync", limit: .seconds(1), scope: .attempt)
        #expect(attempt.errorCode == ErrorCode("axiom.resilience", "attemptTimeout"))
        #expect(whole != attempt)
        #expect(whole == TimeoutError(operation: "sync", limit: .seconds(1), file: "x", line: 1))
    }

    @Test("ConcurrencyLimitError records where it was made and compares and hashes its fields alone")
    func concurrencyLimit() {
        let line: UInt = #line + 1
        let error = ConcurrencyLimitError(key: "wallet", limit: 4, queueLimit: 8)
        #expect(error.errorCode == ErrorCode("axiom.resilience", "concurrencyLimited"))
        #expect(error.throwSite.file == #fileID)
        #expect(error.throwSite.line == line)
        let elsewhere = ConcurrencyLimitError(key: "wallet", limit: 4, queueLimit: 8, file: "x", line: 1)
        #expect(error == elsewhere)
        #expect(error.hashValue == elsewhere.hashValue)
        #expect(Set([error, elsewhere]).count == 1)
        #expect(error != ConcurrencyLimitError(key: "wallet", limit: 4, queueLimit: 9))
    }

    @Test("RateLimitError records where it was made and compares and hashes its fields alone")
    func rateLimit() {
        let line: UInt = #line + 1
        let error = RateLimitError(key: "wallet", retryAfter: .seconds(2))
        #expect(error.errorCode == ErrorCode("axiom.resilience", "rateLimited"))
        #expect(error.throwSite.file == #fileID)
        #expect(error.throwSite.line == line)
        let elsewhere = RateLimitError(key: "wallet", retryAfter: .seconds(2), file: "x", line: 1)
        #expect(error == elsewhere)
        #expect(error.hashValue == elsewhere.hashValue)
        #expect(Set([error, elsewhere]).count == 1)
        #expect(error != RateLimitError(key: "wallet", retryAfter: .seconds(3)))
    }

    @Test("a throw site names its file and line and takes no part in equality or hashing")
    func throwSite() {
        let line: UInt = #line + 1
        let here = ThrowSite()
        #expect(here.file == #fileID && here.line == line)
        #expect(here.description == "\(#fileID):\(line)")
        let elsewhere = ThrowSite(file: "Other/File.swift", line: 7)
        #expect(here == elsewhere)
        #expect(here.hashValue == elsewhere.hashValue)
        let fault = InjectedFault(sequence: 1, file: "Other/File.swift", line: 7)
        #expect(fault.throwSite.description == "Other/File.swift:7")
    }

    @Test("InjectedFault records where it was made and compares its sequence")
    func injectedFault() {
        let line: UInt = #line + 1
        let fault = InjectedFault(sequence: 2)
        #expect(fault.errorCode == ErrorCode("axiom.resilience", "injectedFault"))
        #expect(fault.throwSite.file == #fileID)
        #expect(fault.throwSite.line == line)
        #expect(fault == InjectedFault(sequence: 2, file: "x", line: 1))
        #expect(Set([fault, InjectedFault(sequence: 2)]).count == 1)
    }
}
