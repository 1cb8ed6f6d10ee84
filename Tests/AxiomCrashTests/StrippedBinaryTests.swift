import AxiomCrash
import AxiomSymbolication
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A release build as a deployment pipeline ships it: `axiom symbols add` strips a copy of the crash probe into
/// `AxiomCrashProbe` (with a `.gnu_debuglink`) + `AxiomCrashProbe.debug`, and fills a symbol store; the stripped copy
/// crashes; its report is symbolicated from each place debug info can be found, and every frame must equal
/// `llvm-symbolizer`'s answer on the unstripped probe.
@Suite("Stripped binaries symbolicated by build-id")
struct StrippedBinaryTests {
    /// A crash of a stripped copy of the probe, in its own temporary folder.
    struct StrippedCrash {
        let directory: TemporaryDirectory
        /// `DIR/bin/AxiomCrashProbe`, stripped, with a debuglink to `AxiomCrashProbe.debug` beside it.
        let binary: String
        let debugFile: String
        /// Filled by `axiom symbols add`.
        let store: String
        let reportPath: String
        let raw: RawCrashReport
        let buildID: String

        var path: String { directory.path }

        /// Simulates the report being read on another machine: the module's files do not exist here.
        func removeBinary() {
            unlink(binary)
            unlink(debugFile)
        }
    }

    static let unstrippedProbe = ChildProcess.probePath

    /// The environment a child sees: no debuginfod servers but those a test names.
    static var childEnvironment: [String] {
        ChildProcess.currentEnvironment().filter { variable in
            !variable.hasPrefix("DEBUGINFOD_") && !variable.hasPrefix("SWIFT_BACKTRACE=")
                && !variable.lowercased().contains("_proxy=")
        } + ["SWIFT_BACKTRACE=enable=no"]
    }

    static func crashStrippedCopy() throws -> StrippedCrash {
        let directory = TemporaryDirectory()
        let binary = directory.path + "/bin/AxiomCrashProbe"
        let store = directory.path + "/store"
        let reports = directory.path + "/reports"
        try FileManager.default.createDirectory(atPath: directory.path + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        // Copied by cp, not in this process: a file this process had open for writing could be inherited by a child
        // another test spawns at that moment, and executing the copy would then fail with ETXTBSY.
        try #require(ChildProcess.run("/bin/cp", [unstrippedProbe, binary], stdoutPath: "/dev/null") == .exited(0))

        let added = ChildProcess.runAxiom(["symbols", "add", binary, "--store", store], outputIn: directory.path)
        try #require(added.termination.exitCode == 0, "axiom symbols add: \(added.stderr)")
        #expect(!elfHasDWARF(path: binary), "the shipped binary is stripped")
        let buildID = try #require(elfBuildID(path: unstrippedProbe))
        #expect(elfBuildID(path: binary) == buildID)
        #expect(elfHasDWARF(path: binary + ".debug"))
        let stored = store + "/.build-id/" + buildID.prefix(2) + "/" + buildID.dropFirst(2) + ".debug"
        #expect(access(stored, R_OK) == 0, "the store holds \(stored)")

        let termination = ChildProcess.run(
            binary, [reports, "force-unwrap"], environment: childEnvironment, stdoutPath: "/dev/null",
            stderrPath: directory.path + "/probe.stderr")
        #expect(termination.signal != nil, "\(termination)")
        let pending = try CrashReporter.pendingReports(in: reports)
        let reportPath = try #require(pending.first)
        let raw = try RawCrashReport(contentsOf: reportPath)
        #expect(raw.modules.contains { $0.path == binary && $0.buildIDHex == buildID })
        return StrippedCrash(
            directory: directory, binary: binary, debugFile: binary + ".debug", store: store, reportPath: reportPath,
            raw: raw, buildID: buildID)
    }

    // MARK: (a)–(d): every place debug info is found

    @Test(
        "From the .gnu_debuglink file beside the binary, in .debug/ beside it, or under a debug root's copy of its folder",
        arguments: ["beside", ".debug", "root"])
    func fromDebugLink(_ place: String) throws {
        let crash = try Self.crashStrippedCopy()
        defer { crash.directory.remove() }
        let root = crash.path + "/root"
        let moved: String
        switch place {
        case ".debug": moved = crash.path + "/bin/.debug/AxiomCrashProbe.debug"
        case "root": moved = root + crash.path + "/bin/AxiomCrashProbe.debug"
        default: moved = crash.debugFile
        }
        if moved != crash.debugFile {
            try FileManager.default.createDirectory(
                atPath: (moved as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: crash.debugFile, toPath: moved)
        }
        let search = DebugInfoSearch(debugRoots: [root, "/usr/lib/debug"], symbolStores: [])
        let report = SymbolicatedCrashReport(raw: crash.raw, symbolicator: Symbolicator(search: search))
        let info = try #require(try report.debugInfo[crash.binary]?.get())
        #expect(info.source == .debugLink)
        #expect(info.debugFile == moved)
        try expectMatchesUnstripped(FrameGroup.groups(of: report), crash: crash)
    }

    @Test("A debuglink file whose CRC differs is not used; the binary's symbol table still names functions")
    func debugLinkChecksumIsChecked() throws {
        let crash = try Self.crashStrippedCopy()
        defer { crash.directory.remove() }
        let file = try #require(fopen(crash.debugFile, "a"))
        fputc(0, file)
        fclose(file)
        let search = DebugInfoSearch(debugRoots: [], symbolStores: [])
        let report = SymbolicatedCrashReport(raw: crash.raw, symbolicator: Symbolicator(search: search))
        let info = try #require(try report.debugInfo[crash.binary]?.get())
        #expect(info.source == nil)
        #expect(info.missingReason?.contains("\(crash.debugFile) (CRC differs from the debuglink's)") == true)
        let own = report.frames.filter { $0.image == "AxiomCrashProbe" }
        #expect(own.contains { $0.function?.contains("forceUnwrapNil") == true })
        #expect(own.allSatisfy { $0.line == nil })
        #expect(report.json.contains(#""missing": "no debug info found; looked in: "#))
    }

    @Test("From a debug root's .build-id folder, the binary's path absent")
    func fromBuildIDDirectory() throws {
        let crash = try Self.crashStrippedCopy()
        defer { crash.directory.remove() }
        let root = crash.path + "/root"
        let file = root + "/.build-id/" + crash.buildID.prefix(2) + "/" + crash.buildID.dropFirst(2) + ".debug"
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: crash.debugFile, toPath: file)
        crash.removeBinary()
        let search = DebugInfoSearch(debugRoots: [root, "/usr/lib/debug"], symbolStores: [])
        let report = SymbolicatedCrashReport(raw: crash.raw, symbolicator: Symbolicator(search: search))
        let info = try #require(try report.debugInfo[crash.binary]?.get())
        #expect(info.source == .buildIDDirectory)
        #expect(info.debugFile == file)
        try expectMatchesUnstripped(FrameGroup.groups(of: report), crash: crash)
    }

    @Test("From a symbol store: axiom symbolicate REPORT --symbols DIR, for a report from another machine")
    func fromSymbolStoreOnTheCommandLine() throws {
        let crash = try Self.crashStrippedCopy()
        defer { crash.directory.remove() }
        crash.removeBinary()
        let output = crash.path + "/symbolicated.json"
        let termination = ChildProcess.run(
            ChildProcess.axiomPath, ["symbolicate", crash.reportPath, "--symbols", crash.store, "--json"],
            environment: Self.childEnvironment, stdoutPath: output, stderrPath: crash.path + "/axiom.stderr")
        try #require(termination.exitCode == 0, "\(ChildProcess.readText(crash.path + "/axiom.stderr"))")
        let json = try JSONReport(path: output)
        let stored = crash.store + "/.build-id/" + crash.buildID.prefix(2) + "/" + crash.buildID.dropFirst(2) + ".debug"
        #expect(json.debugInfo(of: crash.binary) == ["source": "symbolStore", "file": stored])
        try expectMatchesUnstripped(json.groups(), crash: crash)

        // The text form says the same.
        let text = crash.path + "/symbolicated.txt"
        _ = ChildProcess.run(
            ChildProcess.axiomPath, ["symbolicate", crash.reportPath, "--symbols", crash.store],
            environment: Self.childEnvironment, stdoutPath: text)
        #expect(ChildProcess.readText(text).contains("    debug info: symbolStore \(stored)"))

        // `axiom crash-reports` takes the same options, and its processed report agrees.
        let reports = (crash.reportPath as NSString).deletingLastPathComponent
        let processed = ChildProcess.run(
            ChildProcess.axiomPath, ["crash-reports", "--dir", reports, "--symbols", crash.store],
            environment: Self.childEnvironment, stdoutPath: "/dev/null")
        #expect(processed.exitCode == 0)
        let name = ((crash.reportPath as NSString).lastPathComponent as NSString).deletingPathExtension
        let fromProcessor = try JSONReport(path: reports + "/processed/" + name + ".json")
        #expect(fromProcessor.debugInfo(of: crash.binary) == ["source": "symbolStore", "file": stored])
        try expectMatchesUnstripped(fromProcessor.groups(), crash: crash)
    }

    @Test("From a debuginfod server on loopback: axiom symbolicate REPORT --debuginfod URL")
    func fromDebuginfod() throws {
        try #require(access("/usr/bin/debuginfod", X_OK) == 0, "install Debian's debuginfod package")
        let crash = try Self.crashStrippedCopy()
        defer { crash.directory.remove() }
        let served = crash.path + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: crash.debugFile, toPath: served + "/AxiomCrashProbe.debug")
        crash.removeBinary()

        let output = crash.path + "/symbolicated.json"
        let log = crash.path + "/debuginfod.log"
        let termination = DebuginfodServer.run(
            serving: served, buildID: crash.buildID, in: crash.path, log: log,
            then: [
                ChildProcess.axiomPath, "symbolicate", crash.reportPath, "--debuginfod", "http://127.0.0.1:$PORT",
                "--debuginfod-timeout", "20", "--json",
            ], environment: Self.childEnvironment + ["DEBUGINFOD_CACHE_PATH=\(crash.path)/cache"], stdoutPath: output)
        try #require(termination.exitCode == 0, "\(termination)\n\(ChildProcess.readText(log).suffix(2000))")
        let json = try JSONReport(path: output)
        let info = try #require(json.debugInfo(of: crash.binary))
        #expect(info["source"] == "debuginfod")
        #expect(info["file"]?.hasPrefix(crash.path + "/cache/") == true, "\(info)")
        try expectMatchesUnstripped(json.groups(), crash: crash)
    }

    // MARK: A rebuilt binary

    @Test("A rebuilt binary (another build-id) gives no lines and says why; a store with the crash's build-id does")
    func rebuiltBinaryIsNeverRead() throws {
        let crash = try Self.crashStrippedCopy()
        defer { crash.directory.remove() }
        // The rebuilt binary: the unstripped probe, DWARF and all, with one byte of its build-id changed.
        crash.removeBinary()
        var bytes = try #require(readFileBytes(Self.unstrippedProbe))
        let note = Array("GNU\0".utf8) + hexBytes(crash.buildID)
        let at = try #require(bytes.firstRange(of: note)).lowerBound + 4
        bytes[at] ^= 0xff
        try Data(bytes).write(to: URL(fileURLWithPath: crash.binary))
        chmod(crash.binary, 0o755)
        let rebuiltID = try #require(elfBuildID(path: crash.binary))
        #expect(rebuiltID != crash.buildID)

        let report = SymbolicatedCrashReport(
            raw: crash.raw, symbolicator: Symbolicator(search: DebugInfoSearch(debugRoots: [], symbolStores: [])))
        let own = report.frames.filter { $0.image == "AxiomCrashProbe" }
        try #require(!own.isEmpty)
        let reason = "build-id differs: the file has \(rebuiltID), the report \(crash.buildID)"
        for frame in own {
            #expect(frame.function == nil && frame.line == nil && frame.file == nil, "\(frame)")
            #expect(frame.imageOffset != nil)
            #expect(frame.unsymbolicatedReason?.hasPrefix(reason) == true, "\(frame)")
        }
        #expect(report.changedModules.contains(crash.binary))
        #expect(report.json.contains(#""unsymbolicated": "\#(reason)"#))
        #expect(report.text.contains("(no symbol: \(reason)"))
        #expect(report.text.contains("    debug info: none: \(reason)"))

        // The same report with the symbol store: lines again, from the debug file with the crash's build-id.
        let fromStore = SymbolicatedCrashReport(
            raw: crash.raw, symbolicator: Symbolicator(search: DebugInfoSearch(symbolStores: [crash.store])))
        #expect(try fromStore.debugInfo[crash.binary]?.get().source == .symbolStore)
        try expectMatchesUnstripped(FrameGroup.groups(of: fromStore), crash: crash)
    }

    // MARK: Servers that are down or never answer

    // Through `axiom symbolicate` in a child process: libdebuginfod reads its servers from the environment, so a
    // query sets environment variables, which is not something to do while other tests run threads in this process.

    /// `axiom symbolicate --debuginfod URL --json` on a report whose module `/usr/bin/app` (build-id `deadbeef`),
    /// and with `modules` above 1 as many more libraries `/usr/lib/libabsentN.so` (build-id `deadbeefN`), exist
    /// nowhere: the JSON report, and how long the command took.
    private func symbolicateAbsentModule(
        url: String, timeoutSeconds: Int, frames: Int = 2, modules: Int = 1, extraArguments: [String] = [],
        in directory: TemporaryDirectory
    ) throws -> (json: String, text: String, elapsed: Duration) {
        var builder = RawReportBuilder()
        builder.modules = [builder.modules[0]]
        builder.frames = [0x5555_0000_1234] + (1..<frames).map { 0x5555_0000_2000 + UInt64($0) * 0x10 }
        for library in 1..<max(1, modules) {
            let base = 0x7f00_0000_0000 + UInt64(library) * 0x100_0000
            builder.modules.append(
                (
                    "/usr/lib/libabsent\(library).so", base, base, base + 0x10_0000,
                    [0xde, 0xad, 0xbe, 0xef, UInt8(library)]
                ))
            builder.frames.append(base + 0x1000 + UInt64(library) * 0x10)
        }
        let report = directory.path + "/absent.axcrash"
        try Data(builder.bytes()).write(to: URL(fileURLWithPath: report))
        let environment = Self.childEnvironment + ["DEBUGINFOD_CACHE_PATH=\(directory.path)/cache"]
        let arguments =
            [
                "symbolicate", report, "--debuginfod", url, "--debuginfod-timeout", String(timeoutSeconds),
                "--debug-dir",
                directory.path + "/no-debug-root",
            ] + extraArguments
        let clock = ContinuousClock()
        let output = directory.path + "/absent.json"
        let elapsed = clock.measure {
            let termination = ChildProcess.run(
                ChildProcess.axiomPath, arguments + ["--json"], environment: environment, stdoutPath: output,
                stderrPath: output + ".stderr")
            // What the tool said, a sanitizer's report included, when it failed.
            #expect(termination.exitCode == 0, "\(termination): \(ChildProcess.readText(output + ".stderr"))")
        }
        // A cache of its own: libdebuginfod remembers a build-id that no server gave (a timeout included) in its
        // cache for 10 minutes, and would answer "not found" at once.
        let text = directory.path + "/absent.txt"
        _ = ChildProcess.run(
            ChildProcess.axiomPath, arguments,
            environment: Self.childEnvironment + ["DEBUGINFOD_CACHE_PATH=\(directory.path)/text-cache"],
            stdoutPath: text)
        return (ChildProcess.readText(output), ChildProcess.readText(text), elapsed)
    }

    @Test("A debuginfod server that is down leaves module offsets, without waiting for the timeout")
    func debuginfodDown() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // A port nothing listens on: bound, then closed.
        let listener = try LoopbackListener()
        let url = "http://127.0.0.1:\(listener.port)"
        listener.close()
        // Refused at once: the reason is the refusal, not the 60 s timeout running out.
        let (json, text, _) = try symbolicateAbsentModule(url: url, timeoutSeconds: 60, in: directory)
        #expect(!json.contains("no answer within"), "\(json)")
        expectOffsetsOnly(
            json: json, text: text,
            reason: "looked in: \(directory.path)/no-debug-root/.build-id/de/adbeef.debug, "
                + "/usr/lib/debug/.build-id/de/adbeef.debug, debuginfod \(url) (")
    }

    @Test("On a terminal, axiom symbolicate shows how many debuginfod queries were answered; elsewhere it stays quiet")
    func debuginfodProgress() throws {
        try #require(access("/usr/bin/script", X_OK) == 0, "util-linux's script gives the tool a terminal")
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let listener = try LoopbackListener()
        let url = "http://127.0.0.1:\(listener.port)"
        listener.close()
        // Three modules that exist nowhere, asked for from a server that refuses at once.
        let (json, _, _) = try symbolicateAbsentModule(url: url, timeoutSeconds: 60, modules: 3, in: directory)
        #expect(json.contains("debuginfod \(url) ("), "\(json)")
        let report = directory.path + "/absent.axcrash"
        // The same command with a terminal for its output (util-linux's `script`), and without one.
        let command = [
            ChildProcess.axiomPath, "symbolicate", report, "--debuginfod", url, "--debug-dir", directory.path,
        ]
        .joined(separator: " ")
        let onTerminal = directory.path + "/terminal.out"
        let environment = Self.childEnvironment + ["DEBUGINFOD_CACHE_PATH=\(directory.path)/terminal-cache"]
        let termination = ChildProcess.run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment, stdoutPath: onTerminal)
        #expect(termination.exitCode == 0, "\(termination)")
        let shown = ChildProcess.readText(onTerminal)
        #expect(shown.contains("axiom: debuginfod: 0 of 1 answered, asking for deadbeef"), "\(shown)")
        #expect(shown.contains("axiom: debuginfod: 3 of 3 answered"), "\(shown)")
        let quiet = directory.path + "/quiet.err"
        _ = ChildProcess.run(
            ChildProcess.axiomPath, ["symbolicate", report, "--debuginfod", url, "--debug-dir", directory.path],
            environment: Self.childEnvironment + ["DEBUGINFOD_CACHE_PATH=\(directory.path)/quiet-cache"],
            stdoutPath: "/dev/null", stderrPath: quiet)
        #expect(!ChildProcess.readText(quiet).contains("debuginfod:"))
    }

    @Test("A debuginfod server that accepts and never answers leaves module offsets within the timeout")
    func debuginfodSilent() throws {
        try withSilentServer { directory, url in
            // Ten frames in the module: one wait per frame would take 20 s at least, one for the module 2 s and
            // whatever the machine adds to starting a process and symbolicating (seconds, on a loaded machine under a
            // sanitizer).
            let (json, text, elapsed) = try symbolicateAbsentModule(
                url: url, timeoutSeconds: 2, frames: 10, in: directory)
            // The wait happened (a lower bound cannot fail on a loaded machine); that it happened once, for the
            // module and not per frame, is the one reason the module is given.
            #expect(elapsed >= .seconds(1.5), "\(elapsed)")
            expectOffsetsOnly(json: json, text: text, reason: "debuginfod \(url) (no answer within 2 s)")
        }
    }

    /// Runs `body` with a temporary folder and the URL of a loopback server that listens and never accepts: the
    /// kernel completes the connection, nobody answers.
    private func withSilentServer(_ body: (TemporaryDirectory, String) throws -> Void) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let listener = try LoopbackListener()
        defer { listener.close() }
        try body(directory, "http://127.0.0.1:\(listener.port)")
    }

    @Test(
        "Servers that never answered are not asked again: six modules, four asked at once, cost one timeout")
    func debuginfodSilentOncePerRun() throws {
        try withSilentServer { directory, url in
            // Six modules, 5 s each: one wait per module would take 30 s at least. The report's modules are asked
            // for four at a time: the first four wait together, 5 s, and go unanswered; the last two start after
            // that and are not asked. 5 s, and whatever the machine adds (seconds, loaded, under a sanitizer).
            let (json, text, elapsed) = try symbolicateAbsentModule(
                url: url, timeoutSeconds: 5, modules: 6, in: directory)
            // The first four waited (a lower bound cannot fail on a loaded machine); the others were not asked, as
            // their reasons say below.
            #expect(elapsed >= .seconds(4), "\(elapsed)")
            expectOffsetsOnly(json: json, text: text, reason: "debuginfod \(url) (no answer within 5 s)")
            let later = "debuginfod \(url) (not asked: no answer within 5 s earlier in this run)"
            for library in 1...5 {
                #expect(json.contains("no debug file with build-id deadbeef0\(library) found"), "\(json)")
            }
            #expect(json.components(separatedBy: later).count - 1 >= 2, "\(json)")
            #expect(text.contains(later), "\(text)")
        }
    }

    @Test("--debuginfod-total-timeout bounds a run's debuginfod waits; the modules after it are not asked")
    func debuginfodTotalTimeout() throws {
        try withSilentServer { directory, url in
            // A module's timeout far above what the command takes: a run that waited for it fails.
            // Six modules: the first four are asked together and spend the budget; the last two are not asked.
            let (json, text, elapsed) = try symbolicateAbsentModule(
                url: url, timeoutSeconds: 60, modules: 6, extraArguments: ["--debuginfod-total-timeout", "2"],
                in: directory)
            #expect(elapsed >= .seconds(1.5), "\(elapsed)")
            expectOffsetsOnly(
                json: json, text: text,
                reason: "debuginfod \(url) (no answer within 2 s, what was left of this run's 2 s)")
            let spent = "debuginfod \(url) (not asked: this run's 2 s for debuginfod are spent)"
            #expect(json.components(separatedBy: spent).count - 1 >= 2, "\(json)")
            #expect(text.contains(spent), "\(text)")
        }
    }

    private func expectOffsetsOnly(json: String, text: String, reason: String) {
        let unsymbolicated =
            #""imageOffset": "0x0000000000001234", "unsymbolicated": "no such file; no debug file with build-id deadbeef found; "#
        #expect(json.contains(unsymbolicated), "\(json)")
        #expect(json.contains(reason), "\(json)")
        #expect(!json.contains(#""sourceLocation""#))
        #expect(text.contains("0x0000555500001234 <unknown> in app +0x1234 (no symbol: no such file; "), "\(text)")
        #expect(text.contains(reason), "\(text)")
    }

    // MARK: Comparison with llvm-symbolizer on the unstripped probe

    /// Every captured address of every module with a path: ours equal llvm-symbolizer's on the same file (the
    /// unstripped probe for the stripped copy), and the crashing function has a source line.
    func expectMatchesUnstripped(_ groups: [FrameGroup], crash: StrippedCrash) throws {
        #expect(groups.count == crash.raw.frames.count)
        let crashing = groups.first {
            $0.modulePath == crash.binary && $0.locations.last?.contains("forceUnwrapNil") == true
        }
        #expect(crashing?.locations.contains { $0.contains("/Tests/AxiomCrashProbe/main.swift:") } == true, "\(groups)")
        // The agreement with llvm-symbolizer is what this test promises: without the reference it fails, saying so.
        try #require(LLVMSymbolizerReference.isAvailable, LLVMSymbolizerReference.missing)
        var byModule: [String: [FrameGroup]] = [:]
        for group in groups {
            guard let path = group.modulePath, path.hasPrefix("/") else { continue }
            byModule[path == crash.binary ? Self.unstrippedProbe : path, default: []].append(group)
        }
        #expect(byModule[Self.unstrippedProbe]?.isEmpty == false)
        var mismatches: [String] = []
        for (module, entries) in byModule {
            let addresses = Array(Set(entries.map(\.address))).sorted()
            let answers = try LLVMSymbolizerReference.symbolicate(
                module: module, addresses: addresses, scratchDirectory: crash.path)
            try #require(answers.count == addresses.count)
            let answerByAddress = Dictionary(uniqueKeysWithValues: zip(addresses, answers))
            for entry in entries {
                let reference = answerByAddress[entry.address]!.Symbol.filter { $0.FunctionName != "??" }
                // Without line info llvm-symbolizer names the file of the preceding STT_FILE symbol; the
                // symbolicator reports no file instead.
                let theirs = reference.map {
                    "\($0.FunctionName) \($0.Line == 0 && entry.hasNoFile ? "" : $0.FileName):\($0.Line)"
                }
                if entry.locations != theirs {
                    mismatches.append(
                        "\(module)+0x\(String(entry.address, radix: 16)):\n  ours   \(entry.locations)\n  theirs \(theirs)"
                    )
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ:\n\(mismatches.prefix(8).joined(separator: "\n"))")
    }
}
