import Axiom
import AxiomCrash
import AxiomSchemaCheck
import AxiomSymbolication
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// From 1.0.0 on, the crash report's JSON and every `--json` output of `axiom` keep the shape their JSON Schema
/// (`Sources/Tools/axiom/Schemas`) states: scripts and log pipelines read them. Each real output, from a crashed child
/// process and the real tool, conforms to its schema, and its schema describes every key it holds.
@Suite("The JSON outputs against their schemas")
struct SchemaConformanceTests {
    /// The crashes whose reports between them hold every part of the report: a fatal message, recent errors,
    /// other threads (one that does not answer), a trace and async frames, a plugin, a cut stack.
    static let crashKinds: [String] =
        ["null-write", "fatal-error", "recent-errors", "threads", "deaf-thread", "traced-async-crash"]
        // Swift plugins do not load under ThreadSanitizer; a sanitizer's runtime takes the overflow's signal.
        + (Sanitizers.thread ? [] : ["plugin-loaded"])
        + (Sanitizers.any ? [] : ["stack-overflow"])

    /// The kinds whose reports are also symbolicated as `--json-lines` and processed by `axiom crash-reports`. Those
    /// write the same report through the same code as `--json`, so under a sanitizer (each symbolication there takes
    /// seconds) one kind stands for all; the plain run checks every kind all three ways.
    static func everyWayFor(_ kind: String) -> Bool { !Sanitizers.any || kind == "recent-errors" }

    @Test(
        "the crash report's JSON follows its schema: --json, and --json-lines and processed (of one kind when sanitized)",
        arguments: crashKinds)
    func crashReportFollowsItsSchema(kind: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = TemporaryDirectory()
        defer { output.remove() }
        let (termination, stderr) = ChildProcess.runProbe(directory: directory.path, kind: kind)
        #expect(termination.signal != nil, "child \(termination); stderr: \(stderr)")
        let report = try #require(try CrashReporter.pendingReports(in: directory.path).first)

        let json = ChildProcess.runAxiom(["symbolicate", report, "--json"], outputIn: output.path)
        #expect(json.termination.exitCode == 0, "\(json.termination) \(json.stderr)")
        #expect(SchemaCheck.problems(in: json.stdout, against: "crash-report") == [])
        // --json-lines and the processed report: every kind in the plain run, one under a sanitizer (see everyWayFor).
        if Self.everyWayFor(kind) {
            let lines = ChildProcess.runAxiom(["symbolicate", report, "--json-lines"], outputIn: output.path)
            #expect(lines.stdout.split(separator: "\n").count == 1)
            #expect(SchemaCheck.problems(inLines: lines.stdout, against: "crash-report") == [])

            let summary = ChildProcess.runAxiom(
                ["crash-reports", "--dir", directory.path, "--json"], outputIn: output.path)
            #expect(summary.termination.exitCode == 0, "\(summary.termination) \(summary.stderr)")
            #expect(SchemaCheck.problems(in: summary.stdout, against: "crash-reports") == [])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(summary.stdout.utf8)) as? [String: Any])
            let processed = try #require((object["processed"] as? [[String: Any]])?.first?["json"] as? String)
            #expect(SchemaCheck.problems(in: ChildProcess.readText(processed), against: "crash-report") == [])
        }
    }

    @Test(
        "axiom crash-reports --json follows crash-reports.schema.json with processed, rejected and incomplete reports")
    func crashReportsSummaryFollowsItsSchema() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = TemporaryDirectory()
        defer { output.remove() }
        _ = try ChildProcess.crashedReport(in: directory.path)
        let good = RawReportBuilder().bytes()
        #expect(writeFile(directory.path + "/crash-zzz-truncated.axcrash", Array(good.prefix(150))))
        let pid = deadPID()
        #expect(
            writeFile(directory.path + "/crash-1700000000-\(pid)-\(pid)-0.axcrash.tmp", Array(good.prefix(100))))

        let result = ChildProcess.runAxiom(["crash-reports", "--dir", directory.path, "--json"], outputIn: output.path)
        #expect(result.termination.exitCode == 1, "\(result.termination) \(result.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        for list in ["processed", "rejected", "incomplete"] {
            #expect((object[list] as? [Any])?.count == 1, "\(list): \(result.stdout)")
        }
        #expect(SchemaCheck.problems(in: result.stdout, against: "crash-reports") == [])

        let empty = ChildProcess.runAxiom(["crash-reports", "--dir", directory.path, "--json"], outputIn: output.path)
        #expect(empty.termination.exitCode == 0, "\(empty.termination) \(empty.stderr)")
        #expect(SchemaCheck.problems(in: empty.stdout, against: "crash-reports") == [])
    }

    @Test("axiom symbolicate --binary --json follows symbolicate-binary.schema.json, line by line")
    func symbolicateBinaryFollowsItsSchema() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let binary = ChildProcess.probePath
        let symbol = try #require(
            try Symbolicator().functionSymbols(modulePath: binary).first { $0.name == "axiom_probe_null_write" })
        // One address with a function, file and line; one that nothing covers (an error).
        let result = ChildProcess.runAxiom(
            ["symbolicate", "--binary", binary, "--json", String(symbol.address + 1), "1"], outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("\"line\"") == true)
        #expect(lines.last?.contains("\"error\"") == true)
        #expect(SchemaCheck.problems(inLines: result.stdout, against: "symbolicate-binary") == [])
    }

    @Test(
        "axiom explain --json follows explain.schema.json",
        arguments: [
            // A C plugin's code with a numeric alias and no retry; one that retries; a built-in code whose
            // optional fields are null.
            ["linux.io", "ENOENT"], ["linux.io", "ETIMEDOUT"], ["axiom.client", "invalidState"],
            ["axiom.client", "invalidState", "--locale", "tr"],
        ])
    func explainFollowsItsSchema(_ arguments: [String]) throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let result = ChildProcess.runAxiom(["explain"] + arguments + ["--json"], outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(SchemaCheck.problems(in: result.stdout, against: "explain") == [])
    }

    @Test(
        "axiom explain --json of a Swift plugin's code with its HTTP status and retry follows explain.schema.json",
        .disabled(if: Sanitizers.thread, "Swift plugins are not loaded under ThreadSanitizer (see AxiomPluginsTests)"))
    func explainOfASwiftPluginFollowsItsSchema() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let result = ChildProcess.runAxiom(["explain", "nwc", "RATE_LIMITED", "--json"], outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(SchemaCheck.problems(in: result.stdout, against: "explain") == [])
    }
}
