import Axiom
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
        #expect(AxiomVersion.current == "1.0.0")
        // The top-level help lists the flag.
        #expect(ChildProcess.runAxiom(["--help"], outputIn: output.path).stdout.contains("--version"))
    }
}
