import Foundation
import Testing

/// `axiom explain`, run as an operator would, over the shipped plugins built beside it.
@Suite("axiom explain")
struct ExplainCommandTests {
    @Test func theJSONFormCarriesAliasesJitterAndTheHTTPStatus() throws {
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

        // A C plugin's status and aliases; a code without a status of its own says so with null.
        let linux = ChildProcess.runAxiom(["explain", "linux.io", "ENOENT", "--json"], outputIn: output.path)
        let other = try #require(try JSONSerialization.jsonObject(with: Data(linux.stdout.utf8)) as? [String: Any])
        #expect(other["httpStatus"] as? Int == 500)
        #expect(other["numericAliases"] as? [Int] == [2])
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
