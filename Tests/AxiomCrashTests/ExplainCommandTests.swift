import Axiom
import Foundation
import Testing

/// `axiom explain`, run as an operator would, over the shipped plugins built beside it.
@Suite("axiom explain")
struct ExplainCommandTests {
    @Test(
        .disabled(if: Sanitizers.thread, "Swift plugins are not loaded under ThreadSanitizer (see AxiomPluginsTests)"))
    func theJSONFormOfASwiftPluginsCodeCarriesItsHTTPStatusAndJitter() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let result = ChildProcess.runAxiom(["explain", "nwc", "RATE_LIMITED", "--json"], outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["httpStatus"] as? Int == 429)
        #expect(object["numericAliases"] as? [Int] == [])
        let retry = try #require(object["retry"] as? [String: Any])
        #expect(retry["jitter"] as? Bool == false)
        #expect(retry["maxAttempts"] as? Int == 3)
    }

    @Test func theJSONFormCarriesAliasesAndTheHTTPStatusOrNull() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        // The C plugin loads under every sanitizer: it is not instrumented.
        let linux = ChildProcess.runAxiom(["explain", "linux.io", "ENOENT", "--json"], outputIn: output.path)
        #expect(linux.termination.exitCode == 0, "\(linux.termination) \(linux.stderr)")
        let other = try #require(try JSONSerialization.jsonObject(with: Data(linux.stdout.utf8)) as? [String: Any])
        #expect(other["httpStatus"] as? Int == 500)
        #expect(other["numericAliases"] as? [Int] == [2])
        #expect((other["retry"] as? [String: Any]) == nil)
        let builtin = ChildProcess.runAxiom(
            ["explain", "axiom.client", "invalidState", "--json"], outputIn: output.path)
        let core = try #require(try JSONSerialization.jsonObject(with: Data(builtin.stdout.utf8)) as? [String: Any])
        #expect(core["httpStatus"] is NSNull)
        #expect(core["numericAliases"] as? [Int] == [])
    }

    @Test func theTextFormNamesTheStatusAndTheWholeRetryPolicy() {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let result = ChildProcess.runAxiom(["explain", "linux.io", "ETIMEDOUT"], outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(result.stdout.hasPrefix("linux.io/ETIMEDOUT (110)\n"))
        #expect(result.stdout.contains("  HTTP status:  504\n"))
        #expect(result.stdout.contains("up to 4 attempts, exponential backoff from 0.5 s to 8.0 s, jittered\n"))
    }
}
