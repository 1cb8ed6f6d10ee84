import Axiom
import Foundation
import Testing

/// What `axiom … --help` prints is read by people: every command's help is plain text, with no escape that a
/// multi-line string literal left in (a stray `\` where a line of the source was continued).
@Suite("axiom --help")
struct HelpTextTests {
    @Test(
        "every command's help is free of stray backslashes",
        arguments: [
            ["--help"], ["explain", "--help"], ["plugins", "--help"], ["symbolicate", "--help"],
            ["crash-reports", "--help"], ["symbols", "--help"], ["symbols", "add", "--help"],
        ])
    func helpHasNoStrayBackslash(_ arguments: [String]) {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let result = ChildProcess.runAxiom(arguments, outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(result.stdout.contains("USAGE:"))
        #expect(!result.stdout.contains("\\"), "\(result.stdout)")
    }

    @Test("axiom --version prints the release of Axiom the tool was built from")
    func versionFlagPrintsTheVersion() {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let result = ChildProcess.runAxiom(["--version"], outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(result.stdout == "axiom \(AxiomVersion.current)\n")
        // The top-level help lists the flag.
        #expect(ChildProcess.runAxiom(["--help"], outputIn: output.path).stdout.contains("--version"))
    }

    @Test("the version names CHANGELOG's newest entry: the release, or the release it leads to with -dev")
    func versionFollowsTheChangelog() throws {
        var path = URL(fileURLWithPath: #filePath).pathComponents
        path.removeLast(3)  // Tests/AxiomCrashTests/HelpTextTests.swift
        let changelog = try String(
            contentsOfFile: NSString.path(withComponents: path + ["CHANGELOG.md"]), encoding: .utf8)
        let heading = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        let expected: String
        if let range = heading.range(of: "Unreleased: toward ") {
            expected = heading[range.upperBound...].trimmingCharacters(in: .whitespaces) + "-dev"
        } else {
            expected = String(heading.dropFirst(3).split(separator: " ").first ?? "")
        }
        #expect(AxiomVersion.current == expected, "CHANGELOG's newest entry: \(heading)")
        // Semantic Versioning: MAJOR.MINOR.PATCH, with an optional pre-release after a hyphen.
        let core = AxiomVersion.current.split(separator: "-", maxSplits: 1)[0].split(separator: ".")
        #expect(core.count == 3 && core.allSatisfy { Int($0) != nil }, "\(AxiomVersion.current)")
    }
}
