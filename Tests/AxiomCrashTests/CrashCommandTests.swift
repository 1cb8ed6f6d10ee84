import Axiom
import AxiomCrash
import AxiomSymbolication
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What one run of the `axiom` executable printed and how it ended.
struct CommandResult {
    var termination: Termination
    var stdout: String
    var stderr: String
}

extension ChildProcess {
    /// The `axiom` executable built beside the test binary.
    static var axiomPath: String {
        String(probePath.dropLast("AxiomCrashProbe".count)) + "axiom"
    }

    /// Runs `axiom arguments…`, its output kept in files under `directory`.
    static func runAxiom(_ arguments: [String], outputIn directory: String) -> CommandResult {
        let stdoutPath = directory + "/axiom.stdout"
        let stderrPath = directory + "/axiom.stderr"
        let termination = run(axiomPath, arguments, stdoutPath: stdoutPath, stderrPath: stderrPath)
        defer {
            unlink(stdoutPath)
            unlink(stderrPath)
        }
        return CommandResult(termination: termination, stdout: readText(stdoutPath), stderr: readText(stderrPath))
    }

    /// Crashes the probe with a null write into `directory` and returns its raw report's path.
    static func crashedReport(in directory: String) throws -> String {
        let (termination, stderr) = runProbe(directory: directory, kind: "null-write")
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        let pending = try CrashReporter.pendingReports(in: directory)
        #expect(pending.count == 1)
        return try #require(pending.first)
    }
}

@Suite("axiom symbolicate and axiom crash-reports")
struct CrashCommandTests {
    @Test func symbolicatePrintsTheTextOrJSONFormAndLeavesTheReportPending() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = TemporaryDirectory()
        defer { output.remove() }
        let report = try ChildProcess.crashedReport(in: directory.path)
        let bytes = readFileBytes(report)

        let text = ChildProcess.runAxiom(["symbolicate", report], outputIn: output.path)
        #expect(text.termination.exitCode == 0, "\(text.termination) \(text.stderr)")
        #expect(text.stdout.hasPrefix("*** Program crashed: Bad pointer dereference at 0x0000000000000000 ***\n"))
        #expect(text.stdout.contains(" axiom_probe_null_write + "))
        #expect(text.stdout.contains("axiom_crash_probe.c:\(nullWriteLine)"))
        #expect(text.stderr.isEmpty)

        let json = ChildProcess.runAxiom(["symbolicate", report, "--json"], outputIn: output.path)
        #expect(json.termination.exitCode == 0, "\(json.termination) \(json.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "crashReport")
        #expect(object["description"] as? String == "Bad pointer dereference")
        let threads = try #require(object["threads"] as? [[String: Any]])
        let frames = try #require(threads.first?["frames"] as? [[String: Any]])
        #expect((frames.first?["symbol"] as? String) == "axiom_probe_null_write")

        // Only read: still pending, byte for byte.
        #expect(try CrashReporter.pendingReports(in: directory.path) == [report])
        #expect(readFileBytes(report) == bytes)
    }

    /// The version is recorded when the reporter is installed, in the raw report, so whichever tool reads the report
    /// later names the version that crashed.
    @Test func theReportNamesTheAxiomVersionThatCrashedInJSONAndText() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = TemporaryDirectory()
        defer { output.remove() }
        let report = try ChildProcess.crashedReport(in: directory.path)
        #expect(try RawCrashReport(contentsOf: report).axiomVersion == AxiomVersion.current)

        let json = ChildProcess.runAxiom(["symbolicate", report, "--json"], outputIn: output.path)
        #expect(json.termination.exitCode == 0, "\(json.termination) \(json.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["axiomVersion"] as? String == AxiomVersion.current)

        let text = ChildProcess.runAxiom(["symbolicate", report], outputIn: output.path)
        #expect(text.termination.exitCode == 0, "\(text.termination) \(text.stderr)")
        #expect(text.stdout.contains("\nAxiom: \(AxiomVersion.current)\n"), "\(text.stdout)")
    }

    @Test func symbolicateRefusesAMalformedOrMissingReportAndKeepsTheFile() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let truncated = output.path + "/crash-truncated.axcrash"
        let good = RawReportBuilder().bytes()
        #expect(writeFile(truncated, Array(good.prefix(150))))

        let result = ChildProcess.runAxiom(["symbolicate", truncated], outputIn: output.path)
        #expect(result.termination.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "axiom: \(truncated) is not a valid raw crash report: raw crash report is truncated: 150 bytes, "
                + "expected \(good.count)\n")
        #expect(readFileBytes(truncated) == Array(good.prefix(150)))

        let missing = ChildProcess.runAxiom(["symbolicate", output.path + "/nothing.axcrash"], outputIn: output.path)
        #expect(missing.termination.exitCode == 1)
        #expect(missing.stderr.hasPrefix("axiom: cannot read raw crash report \(output.path)/nothing.axcrash: "))
    }

    @Test func symbolicateBinaryAnswersEachAddressInLLVMSymbolizersLayout() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let binary = ChildProcess.probePath
        let symbolicator = Symbolicator()
        let symbol = try #require(
            try symbolicator.functionSymbols(modulePath: binary).first { $0.name == "axiom_probe_null_write" })
        let address = symbol.address + 1
        let frames = try symbolicator.symbolicate(modulePath: binary, address: address)
        let expected =
            frames.map { "\($0.function ?? "??")\n\($0.file ?? "??"):\($0.line ?? 0):\($0.column ?? 0)\n" }.joined()
            + "\n"

        // Hex and decimal, in the order given; an address nothing covers is answered with ?? and the rest go on.
        let text = ChildProcess.runAxiom(
            ["symbolicate", "--binary", binary, "0x" + String(address, radix: 16), "1", String(address)],
            outputIn: output.path)
        #expect(text.termination.exitCode == 0, "\(text.termination) \(text.stderr)")
        #expect(text.stdout == expected + "??\n??:0:0\n\n" + expected)
        #expect(frames.last?.file?.hasSuffix("axiom_crash_probe.c") == true)

        let json = ChildProcess.runAxiom(
            ["symbolicate", "--binary", binary, "--json", String(address)], outputIn: output.path)
        #expect(json.termination.exitCode == 0, "\(json.termination) \(json.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["address"] as? String == "0x" + String(address, radix: 16))
        let jsonFrames = try #require(object["frames"] as? [[String: Any]])
        #expect(jsonFrames.last?["function"] as? String == "axiom_probe_null_write")

        let bad = ChildProcess.runAxiom(["symbolicate", "--binary", binary, "0xZZ"], outputIn: output.path)
        #expect(bad.termination.exitCode == 1)
        #expect(bad.stdout.isEmpty)
        #expect(bad.stderr == "axiom: 0xZZ is not an address (0x-prefixed hex, or decimal)\n")

        let none = ChildProcess.runAxiom(["symbolicate"], outputIn: output.path)
        #expect(none.termination.exitCode != 0)
    }

    /// A long list of addresses (a whole stack, a sample of a profile) is answered in order, each as alone, with the
    /// options given around it: a number that is an option's value is not taken for an address.
    @Test func symbolicateBinaryAnswersALongListOfAddressesInOrder() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let binary = ChildProcess.probePath
        let symbolicator = Symbolicator()
        let symbols = try symbolicator.functionSymbols(modulePath: binary).filter { $0.size > 1 }
        try #require(symbols.count >= 20)
        let addresses = (0..<300).map { symbols[($0 * 7) % symbols.count].address + 1 }
        let expected = try addresses.map { address in
            try symbolicator.symbolicate(modulePath: binary, address: address).map {
                "\($0.function ?? "??")\n\($0.file ?? "??"):\($0.line ?? 0):\($0.column ?? 0)\n"
            }.joined() + "\n"
        }.joined()
        let texts = addresses.map { "0x" + String($0, radix: 16) }

        let result = ChildProcess.runAxiom(
            ["symbolicate", texts[0], "--binary", binary, "--debuginfod-timeout", "7"] + texts.dropFirst(),
            outputIn: output.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(result.stdout == expected)

        let json = ChildProcess.runAxiom(["symbolicate", "--binary", binary, "--json"] + texts, outputIn: output.path)
        #expect(json.termination.exitCode == 0, "\(json.termination) \(json.stderr)")
        #expect(json.stdout.split(separator: "\n").count == addresses.count)

        let bad = ChildProcess.runAxiom(
            ["symbolicate", "--binary", binary] + texts.prefix(100) + ["0xZZ"] + texts.prefix(100),
            outputIn: output.path)
        #expect(bad.termination.exitCode == 1)
        #expect(bad.stdout.isEmpty)
        #expect(bad.stderr == "axiom: 0xZZ is not an address (0x-prefixed hex, or decimal)\n")
    }

    /// The usual line (`--binary FILE` and addresses) is read without ArgumentParser; every form ArgumentParser
    /// accepts gives the same answer, and every mistake still gets ArgumentParser's message.
    @Test func symbolicateBinaryReadsItsOptionsAsArgumentParserDoes() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let binary = ChildProcess.probePath
        let symbols = try Symbolicator().functionSymbols(modulePath: binary).filter { $0.size > 1 }
        let texts = symbols.prefix(5).map { "0x" + String($0.address + 1, radix: 16) }
        let run = { (arguments: [String]) in ChildProcess.runAxiom(["symbolicate"] + arguments, outputIn: output.path) }

        let plain = run(["--binary", binary] + texts)
        #expect(plain.termination.exitCode == 0, "\(plain.termination) \(plain.stderr)")
        #expect(plain.stdout.components(separatedBy: "\n\n").dropLast().count == texts.count)
        // An attached value, addresses on both sides of the options, and the debug-info options (which add
        // folders to search: the binary's own DWARF answers first).
        let spelled = run(
            [texts[0], "--binary=\(binary)", "--debug-dir", output.path, "--symbols=\(output.path)"]
                + texts.dropFirst(3) + ["--debuginfod-total-timeout", "4"] + texts[1..<3])
        #expect(spelled.termination.exitCode == 0, "\(spelled.termination) \(spelled.stderr)")
        let reordered = run(["--binary", binary, texts[0]] + texts.dropFirst(3) + texts[1..<3])
        #expect(spelled.stdout == reordered.stdout)

        // `--json-lines` asks for JSON as `--json` does: each address's answer is one line either way.
        let json = run(["--binary", binary, "--json"] + texts)
        let jsonLines = run(["--binary", binary, "--json-lines"] + texts)
        #expect(json.termination.exitCode == 0 && jsonLines.termination.exitCode == 0)
        #expect(jsonLines.stdout == json.stdout)
        #expect(json.stdout.split(separator: "\n").count == texts.count)

        // Mistakes, answered by ArgumentParser.
        let missing = run([texts[0], "--binary"])
        #expect(missing.termination.exitCode != 0)
        #expect(missing.stderr.contains("Missing value for '--binary <binary>'"), "\(missing.stderr)")
        let notNumber = run(["--binary", binary, "--debuginfod-timeout", "soon", texts[0]])
        #expect(notNumber.termination.exitCode != 0)
        #expect(notNumber.stderr.contains("'soon' is invalid for '--debuginfod-timeout"), "\(notNumber.stderr)")
        let unknown = run(["--binary", binary, "--inlines", texts[0]])
        #expect(unknown.termination.exitCode != 0)
        #expect(unknown.stderr.contains("Unknown option '--inlines'"), "\(unknown.stderr)")
        let help = run(["--binary", binary, "--help"])
        #expect(help.termination.exitCode == 0)
        #expect(help.stdout.contains("OVERVIEW:"))
    }

    /// Output to a full disk: the command fails and says why, rather than exiting 0 with its answers lost. The
    /// symbolicate line the tool reads itself ends its process its own way, so both ends are checked.
    @Test(.enabled(if: access("/dev/full", W_OK) == 0, "needs /dev/full, a device every write to fails"))
    func outputThatCannotBeWrittenFailsTheCommand() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let binary = ChildProcess.probePath
        let symbols = try Symbolicator().functionSymbols(modulePath: binary).filter { $0.size > 1 }
        let few = symbols.prefix(3).map { "0x" + String($0.address + 1, radix: 16) }
        // Many: their text is written in pieces before the end, as the answers come.
        let many = stride(from: 0, to: symbols.count, by: max(1, symbols.count / 500)).map {
            "0x" + String(symbols[$0].address + 1, radix: 16)
        }
        let errors = output.path + "/stderr"
        for arguments in [
            ["symbolicate", "--binary", binary] + few, ["symbolicate", "--binary", binary, "--json"] + many,
            ["explain", "axiom.client", "invalidState", "--json"],
        ] {
            let full = ChildProcess.run(ChildProcess.axiomPath, arguments, stdoutPath: "/dev/full", stderrPath: errors)
            #expect(full == .exited(1), "\(arguments.prefix(4)): \(full)")
            #expect(ChildProcess.readText(errors).contains("axiom: the output could not be written"))
            let written = ChildProcess.runAxiom(arguments, outputIn: output.path)
            #expect(written.termination == .exited(0), "\(arguments.prefix(4)): \(written.stderr)")
            #expect(!written.stdout.isEmpty)
        }
    }

    @Test("Reading ahead (the symbol table and many units' tables at once) changes no answer")
    func readingAheadChangesNoAnswer() throws {
        let binary = ChildProcess.probePath
        let symbols = try Symbolicator().functionSymbols(modulePath: binary).filter { $0.size > 1 }
        let addresses = stride(from: 0, to: symbols.count, by: max(1, symbols.count / 400)).map {
            symbols[$0].address + symbols[$0].size / 2
        }
        // One symbolicator at a time: tests run beside others that measure the process's resident memory.
        let reference = { () -> [[SymbolicatedFrame]?] in
            let alone = Symbolicator()
            return addresses.map { try? alone.symbolicate(modulePath: binary, address: $0) }
        }()
        let prepared = Symbolicator()
        prepared.prepare(modulePath: binary, addresses: addresses)
        let answers = addresses.map { try? prepared.symbolicate(modulePath: binary, address: $0) }
        #expect(answers == reference)
        #expect(answers.compactMap { $0 }.count > addresses.count / 2)
        // Some with lines: the units' tables were read.
        #expect(answers.contains { $0?.contains { $0.line != nil } == true })
    }

    @Test("Reading a log's lines ahead changes no finished line")
    func readingALogAheadChangesNoFinishedLine() throws {
        let binary = ChildProcess.probePath
        let name = String(binary.split(separator: "/").last!)
        let buildID = try #require(elfBuildID(path: binary))
        let symbols = try Symbolicator().functionSymbols(modulePath: binary).filter { $0.size > 1 }
        // Offsets as a logged stack has them: one past the address they stand for.
        let offsets = stride(from: 0, to: symbols.count, by: max(1, symbols.count / 240)).map {
            symbols[$0].address + symbols[$0].size / 2 + 1
        }
        var lines = stride(from: 0, to: offsets.count, by: 8).map { start in
            let frames = offsets[start..<min(start + 8, offsets.count)].map { "\(name)+0x\(String($0, radix: 16))" }
            return "level=error stack=[\(frames.joined(separator: ","))] stackModules=[\(name):\(buildID):\(binary)]"
        }
        // A line without modules, and one whose module has another build: both stay as they are.
        lines += [
            "level=info message=started",
            "stack=[\(name)+0x10] stackModules=[\(name):\(String(repeating: "0", count: 40)):\(binary)]",
        ]
        // One symbolicator at a time: tests run beside others that measure the process's resident memory.
        let reference = { () -> [String] in
            let alone = LoggedStackSymbolication(symbolicator: Symbolicator())
            return lines.map { alone.symbolicate(line: $0) }
        }()
        let finisher = LoggedStackSymbolication(symbolicator: Symbolicator())
        finisher.prepare(lines: lines)
        let finished = lines.map { finisher.symbolicate(line: $0) }
        #expect(finished == reference)
        #expect(finished.suffix(2) == lines.suffix(2))
        // Most frames were finished: the units' tables were read.
        let unfinished = finished.dropLast(2).map { $0.matches(of: /\+0x/).count }.reduce(0, +)
        #expect(unfinished < offsets.count / 2, "\(unfinished) of \(offsets.count) frames unfinished")
        #expect(finished.contains { $0.contains(".swift:") || $0.contains(".c:") })
    }

    @Test func crashReportsProcessesEveryPendingReportAndExitsOneWhenOneIsRejected() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = TemporaryDirectory()
        defer { output.remove() }
        let report = try ChildProcess.crashedReport(in: directory.path)
        let name = String(report.split(separator: "/").last!)
        #expect(writeFile(directory.path + "/crash-zzz-empty.axcrash", []))

        let first = ChildProcess.runAxiom(["crash-reports", "--dir", directory.path], outputIn: output.path)
        #expect(first.termination.exitCode == 1, "\(first.termination) \(first.stderr)")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        let expected = "processed \(directory.path)/processed/\(name): SIGSEGV Bad pointer dereference in "
        #expect(lines.first?.hasPrefix(expected + "axiom_probe_null_write + ") == true, "\(lines)")
        #expect(lines.first?.hasSuffix(".json") == true)
        #expect(
            lines.last == "rejected  \(directory.path)/rejected/crash-zzz-empty.axcrash: raw crash report is empty")
        #expect(access(directory.path + "/processed/" + name, F_OK) == 0)
        #expect(access(directory.path + "/rejected/crash-zzz-empty.axcrash.reason", F_OK) == 0)

        // Nothing is processed twice.
        let second = ChildProcess.runAxiom(["crash-reports", "--dir", directory.path], outputIn: output.path)
        #expect(second.termination.exitCode == 0)
        #expect(second.stdout == "no pending crash reports in \(directory.path)\n")
    }

    @Test func crashReportsJSONListsProcessedAndRejectedWithReasons() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = TemporaryDirectory()
        defer { output.remove() }
        let report = try ChildProcess.crashedReport(in: directory.path)
        let stem = String(report.split(separator: "/").last!.dropLast(".axcrash".count))
        let good = RawReportBuilder().bytes()
        #expect(writeFile(directory.path + "/crash-zzz-truncated.axcrash", Array(good.prefix(150))))

        let result = ChildProcess.runAxiom(["crash-reports", "--dir", directory.path, "--json"], outputIn: output.path)
        #expect(result.termination.exitCode == 1, "\(result.termination) \(result.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["directory"] as? String == directory.path)
        let processed = try #require(object["processed"] as? [[String: Any]])
        #expect(processed.count == 1)
        #expect(processed.first?["signal"] as? String == "SIGSEGV")
        #expect(processed.first?["json"] as? String == "\(directory.path)/processed/\(stem).json")
        #expect(processed.first?["text"] as? String == "\(directory.path)/processed/\(stem).txt")
        #expect((processed.first?["crashSite"] as? String)?.hasPrefix("axiom_probe_null_write + ") == true)
        // The fingerprint the processed JSON report has, for a tool that counts bugs.
        let fingerprint = try #require(processed.first?["fingerprint"] as? [String: Any])
        let written = try #require(
            try JSONSerialization.jsonObject(
                with: Data(ChildProcess.readText("\(directory.path)/processed/\(stem).json").utf8))
                as? [String: Any])
        let reported = try #require(written["fingerprint"] as? [String: Any])
        #expect(fingerprint["value"] as? String == reported["value"] as? String)
        #expect((fingerprint["value"] as? String)?.count == 16)
        #expect(fingerprint["version"] as? Int == 1)
        #expect(fingerprint["provisional"] as? Bool == false)
        #expect(fingerprint["kind"] as? String == "SIGSEGV")
        let frames = try #require(reported["frames"] as? [[String: Any]])
        #expect(frames.first?["function"] as? String == "axiom_probe_null_write", "\(frames)")
        let rejected = try #require(object["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1)
        #expect(rejected.first?["rawReport"] as? String == "\(directory.path)/rejected/crash-zzz-truncated.axcrash")
        #expect(
            rejected.first?["reason"] as? String
                == "raw crash report is truncated: 150 bytes, expected \(good.count)")
        #expect((object["failed"] as? [Any])?.isEmpty == true)
    }

    @Test func crashReportsRefusesAMissingDirectory() throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        let result = ChildProcess.runAxiom(["crash-reports", "--dir", output.path + "/absent"], outputIn: output.path)
        #expect(result.termination.exitCode == 1)
        #expect(result.stderr == "axiom: no crash report directory at \(output.path)/absent\n")
    }
}
