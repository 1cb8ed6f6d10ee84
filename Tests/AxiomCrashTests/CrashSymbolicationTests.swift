import Axiom
import AxiomCrash
import Foundation
import Testing

/// The package root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// The 1-based line of the probe source that carries `// crash-line: <marker>`.
func crashLine(_ marker: String, in relativePath: String) -> Int? {
    let text = ChildProcess.readText(packageRoot + "/" + relativePath)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    return lines.firstIndex { $0.contains("// crash-line: \(marker)") }.map { $0 + 1 }
}

/// The line of the probe's null write (`// crash-line: null-write`).
let nullWriteLine = crashLine("null-write", in: "Tests/CAxiomCrashProbeSupport/axiom_crash_probe.c") ?? -1

@Suite("Crash reports symbolicated")
struct CrashSymbolicationTests {
    @Test(arguments: crashCases)
    func processedReportNamesTheCrashingLine(_ crash: CrashCase) throws {
        try checkCrashingLine(crash)
    }

    @Test(
        .enabled(if: CrashReporter.preparesNewThreads, CrashCase.unpreparedThreadsUnchecked),
        arguments: crashCasesOnNewThreads)
    func processedReportOfANewThreadNamesTheCrashingLine(_ crash: CrashCase) throws {
        try checkCrashingLine(crash)
    }

    func checkCrashingLine(_ crash: CrashCase) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = ChildProcess.runProbe(directory: directory.path, kind: crash.kind)

        let outcomes = try CrashReportProcessor(directory: directory.path).processPendingReports()
        try #require(outcomes.count == 1)
        guard case .processed(let processed) = outcomes[0] else {
            Issue.record("not processed: \(outcomes[0])")
            return
        }
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
        #expect(access(processed.rawPath, F_OK) == 0)
        let report = processed.report

        // The top frame of the probe's own code is the crashing function, at the marked line.
        // Compiler-generated frames (release builds add an inlined "Swift runtime failure"
        // frame at /<compiler-generated>, line 0) are not the probe's own code.
        let own = try #require(
            report.frames.first { $0.image == "AxiomCrashProbe" && $0.file?.hasPrefix(packageRoot) == true })
        #expect(own.function?.contains(crash.function) == true, "top own frame: \(own)")
        #expect(own.file?.hasSuffix(crash.sourceFile) == true, "top own frame: \(own)")
        let marked = try #require(crashLine(crash.marker, in: crash.sourceFile))
        let expectedLines = (marked + crash.lineOffsets.lowerBound)...(marked + crash.lineOffsets.upperBound)
        // Under a sanitizer the probe is instrumented too, and a stack overflow may fault in the instrumentation's
        // prologue call, which the line table puts at line 0 (llvm-symbolizer agrees: compared below).
        let inInstrumentation =
            Sanitizers.any && crash.kind.hasSuffix("stack-overflow") && (own.line ?? 0) == 0
        #expect(
            inInstrumentation || expectedLines.contains(own.line ?? 0),
            "top own frame: \(own), crash marked at \(marked)")

        try checkJSON(processed, report: report)
        try compareWithLLVMSymbolizer(report, scratchDirectory: directory.path)
    }

    func checkJSON(_ processed: ProcessedCrashReport, report: SymbolicatedCrashReport) throws {
        let data = Data(try #require(readFileBytes(processed.jsonPath)))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in [
            "timestamp", "kind", "description", "faultAddress", "platform", "architecture", "threads", "images",
        ] {
            #expect(json[key] != nil, "missing \(key)")
        }
        #expect(json["kind"] as? String == "crashReport")
        let threads = try #require(json["threads"] as? [[String: Any]])
        let thread = try #require(threads.first)
        #expect(thread["crashed"] as? Bool == true)
        #expect(thread["name"] as? String == report.raw.threadName)
        #expect((thread["registers"] as? [String: String])?["rip"] == hexString(report.raw.frames[0]))
        let frames = try #require(thread["frames"] as? [[String: Any]])
        // A cut stack ends with a `truncated` frame, as the Swift backtracer's does.
        #expect(frames.count == report.frames.count + (report.raw.framesTruncated ? 1 : 0))
        #expect((frames.last?["kind"] as? String == "truncated") == report.raw.framesTruncated)
        #expect(frames.first?["kind"] as? String == "programCounter")
        #expect(frames.first?["address"] as? String == hexString(report.raw.frames[0]))
        let locations = frames.filter { $0["image"] as? String == "AxiomCrashProbe" }
            .compactMap { $0["sourceLocation"] as? [String: Any] }
        #expect(locations.contains { $0["file"] is String && $0["line"] is Int && $0["column"] is Int })
        let images = try #require(json["images"] as? [[String: Any]])
        #expect(images.count == report.raw.modules.count)
        #expect(images.first?["buildId"] as? String == report.raw.modules.first?.buildIDHex)

        let text = ChildProcess.readText(processed.textPath)
        #expect(text.hasPrefix("*** Program crashed: \(report.crashDescription)"))
        #expect(json["description"] as? String == report.summary)
        #expect(threads.count == 1 + report.otherThreads.count)
        #expect(text.contains("Thread \(report.raw.tid) \"\(report.raw.threadName)\" crashed:"))
    }

    /// Every frame's function and file:line match llvm-symbolizer's for the same module
    /// and address (inlined frames included), on every thread of the report.
    func compareWithLLVMSymbolizer(_ report: SymbolicatedCrashReport, scratchDirectory: String) throws {
        try compareWithLLVMSymbolizer(
            report.raw, addresses: report.raw.frames, frames: report.frames, scratchDirectory: scratchDirectory)
        for (raw, thread) in zip(report.raw.otherThreads, report.otherThreads) {
            try compareWithLLVMSymbolizer(
                report.raw, addresses: raw.frames, frames: thread.frames, scratchDirectory: scratchDirectory)
        }
    }

    /// One thread's frames (`addresses` as captured, `frames` as symbolicated) against llvm-symbolizer.
    func compareWithLLVMSymbolizer(
        _ raw: RawCrashReport, addresses pcs: [UInt64], frames: [SymbolicatedCrashReport.Frame],
        scratchDirectory: String
    ) throws {
        // The agreement with llvm-symbolizer is what this test promises: without the reference it fails, saying so.
        try #require(LLVMSymbolizerReference.isAvailable, LLVMSymbolizerReference.missing)
        var byModule: [String: [(index: Int, address: UInt64)]] = [:]
        for (index, pc) in pcs.enumerated() {
            guard let module = raw.module(containing: pc), module.path.hasPrefix("/") else { continue }
            let address = pc - module.bias - (index == 0 ? 0 : 1)
            byModule[module.path, default: []].append((index, address))
        }
        var mismatches: [String] = []
        var compared = 0
        for (module, entries) in byModule {
            // Deep recursion repeats one address; ask once per distinct address.
            let addresses = Array(Set(entries.map(\.address))).sorted()
            let answers = try LLVMSymbolizerReference.symbolicate(
                module: module, addresses: addresses, scratchDirectory: scratchDirectory)
            try #require(answers.count == addresses.count)
            let answerByAddress = Dictionary(uniqueKeysWithValues: zip(addresses, answers))
            for entry in entries {
                let ours = frames.filter { $0.index == entry.index }
                // A function without a name (a static function of a library without debug info) is "??" for
                // llvm-symbolizer's DWARF and "" for its symbol table; the symbolicator has no frame name either.
                let reference = answerByAddress[entry.address]!.Symbol.filter {
                    $0.FunctionName != "??" && !$0.FunctionName.isEmpty
                }
                let oursText = ours.filter { $0.symbol != nil }.map {
                    "\($0.symbol ?? "??") \($0.file ?? ""):\($0.line ?? 0)"
                }
                // Without line info llvm-symbolizer names the file of the preceding STT_FILE
                // symbol; the symbolicator reports no file instead.
                let theirsText = reference.map {
                    let file = $0.Line == 0 && ours.allSatisfy({ $0.file == nil }) ? "" : $0.FileName
                    return "\($0.FunctionName) \(file):\($0.Line)"
                }
                compared += 1
                if oursText != theirsText {
                    mismatches.append(
                        "#\(entry.index) \(module)+0x\(String(entry.address, radix: 16)):\n  ours   \(oursText)\n  theirs \(theirsText)"
                    )
                }
            }
        }
        #expect(compared == pcs.count { pc in raw.module(containing: pc)?.path.hasPrefix("/") == true })
        #expect(mismatches.isEmpty, "\(mismatches.count) differ:\n\(mismatches.prefix(8).joined(separator: "\n"))")
    }

    func hexString(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
