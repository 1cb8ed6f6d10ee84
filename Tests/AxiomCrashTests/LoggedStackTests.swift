import Axiom
import AxiomCrash
import AxiomSymbolication
import Foundation
import InMemoryLogging
import Logging
import MetricsTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Application code of the logged-stack tests: never inlined, so each is a frame of its own in every build.

@inline(never)
func postLedgerEntry(_ pipeline: ErrorPipeline<Handle>) throws(EscalatedError) -> Outcome<any Sendable>? {
    do {
        try writeLedger(.corrupted)
    } catch {
        return try pipeline.decide(error, operation: "append")
    }
    return nil
}

@inline(never)
func writeLedgerLater() async throws -> Int {
    await Task.yield()
    try writeLedger(.corrupted)
    return 1
}

@inline(never)
func innerLedgerLevel(_ pipeline: ErrorPipeline<Handle>) async throws(EscalatedError) -> Outcome<Int> {
    let outcome = try await pipeline.run("append") { try await writeLedgerLater() }
    await Task.yield()
    return outcome
}

@inline(never)
func middleLedgerLevel(_ pipeline: ErrorPipeline<Handle>) async throws(EscalatedError) -> Outcome<Int> {
    let outcome = try await innerLedgerLevel(pipeline)
    await Task.yield()
    return outcome
}

@inline(never)
func outerLedgerLevel(_ pipeline: ErrorPipeline<Handle>) async throws(EscalatedError) -> Outcome<Int> {
    let outcome = try await middleLedgerLevel(pipeline)
    await Task.yield()
    return outcome
}

/// A terminal pipeline for ledger errors whose events are logged to `observer`, stacks captured by `capturer`.
func ledgerPipeline(
    _ observer: any ErrorObserver, capturer: UnwindStackCapturer = UnwindStackCapturer()
) throws
    -> ErrorPipeline<Handle>
{
    ErrorPipeline(
        layer: .application, escalatesTo: nil,
        configuration: PipelineConfiguration(
            registry: try LedgerError.registry(), observers: [observer], stackCapturer: capturer)
    ) {
        Handle()
    }
}

/// The one line a log entry makes through the framework's structured handler.
func structuredLine(_ entry: InMemoryLogHandler.Entry) -> String {
    StructuredLogHandler.format(
        level: entry.level, timestamp: "2026-11-23T19:00:00.000Z", message: "\(entry.message)",
        metadata: entry.metadata)
}

/// A module-relative frame, `module+0xoffset`: its module and offset.
func moduleRelative(_ frame: String) -> (module: String, offset: UInt64)? {
    guard let plus = frame.range(of: "+0x", options: .backwards),
        let offset = UInt64(frame[plus.upperBound...], radix: 16)
    else { return nil }
    return (String(frame[..<plus.lowerBound]), offset)
}

/// Any hex number of nine digits or more: an absolute address of this process (module offsets are shorter).
// Regex is not Sendable; this one is never mutated, and matching only reads it.
nonisolated(unsafe) let absoluteAddress = #/0x[0-9a-fA-F]{9,}/#

/// `swift-demangle`'s reading of a mangled name: what the reference's function names become.
func demangled(_ mangled: String, scratch: String) -> String {
    let output = scratch + "/demangled"
    _ = ChildProcess.run("/opt/swift/usr/bin/swift-demangle", ["--compact", "--no-sugar", mangled], stdoutPath: output)
    return ChildProcess.readText(output).trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("Logged stacks of non-fatal errors")
struct LoggedStackTests {
    /// Whether a symbolicated frame is a function of the framework's modules (or a thunk for one).
    static func isFrameworkFrame(_ frame: String) -> Bool {
        ["Axiom.", "AxiomCore."].contains { frame.hasPrefix($0) || frame.contains(" for \($0)") }
    }

    @Test func aLoggedStackIsModuleRelativeWithBuildIDsAndStartsInTheApplicationFunction() throws {
        let (logger, handler) = memoryLogger()
        let pipeline = try ledgerPipeline(LoggingObserver(logger: logger))
        let outcome = try postLedgerEntry(pipeline)
        let captured = try #require(outcome?.event?.stack)

        let entry = try #require(handler.entries.first)
        let frames = strings(entry.metadata["stack"])
        let modules = strings(entry.metadata["stackModules"])
        let line = structuredLine(entry)
        #expect(line.firstMatch(of: absoluteAddress) == nil, "\(line)")
        for address in captured.addresses { #expect(!line.contains(String(address, radix: 16)), "\(line)") }
        #expect(frames.allSatisfy { moduleRelative($0) != nil }, "\(frames)")
        #expect(line.contains(" stack=[") && line.contains(" stackModules=["), "\(line)")

        // Every module a frame names is listed once, with the build-id of the file that ran.
        let finisher = LoggedStackSymbolication(symbolicator: Symbolicator())
        let listed = finisher.modules(in: line)
        #expect(listed.count == modules.count)
        #expect(Set(listed.map(\.name)) == Set(frames.compactMap { moduleRelative($0)?.module }))
        for module in listed { #expect(module.buildID == elfBuildID(path: module.path), "\(module)") }

        // The first frame is the application's function that handed the error to the pipeline: what the
        // toolchain's llvm-symbolizer says of that module and offset (a return address: looked up one byte back).
        let first = try #require(frames.first.flatMap(moduleRelative))
        let module = try #require(listed.first { $0.name == first.module })
        // The agreement with llvm-symbolizer is what this test promises: without the reference it fails, saying so.
        try #require(LLVMSymbolizerReference.isAvailable, LLVMSymbolizerReference.missing)
        let scratch = TemporaryDirectory()
        defer { scratch.remove() }
        let answer = try #require(
            try LLVMSymbolizerReference.symbolicate(
                module: module.path, addresses: [first.offset - 1], scratchDirectory: scratch.path
            ).first)
        // The physical function; a release build may have inlined `handle` into it, which llvm-symbolizer then
        // lists first, as an inlined frame.
        let function = try #require(answer.Symbol.last?.FunctionName)
        #expect(function.contains("15postLedgerEntry"), "\(answer.Symbol.map(\.FunctionName))")
        #expect(!answer.Symbol.contains { $0.FunctionName.contains("makeEvent") })
    }

    @Test(.enabled(if: LLVMSymbolizerReference.isAvailable, LLVMSymbolizerReference.missing))
    func axiomSymbolicateFinishesALoggedLineAsLLVMSymbolizerReadsIt() throws {
        let (logger, handler) = memoryLogger()
        let pipeline = try ledgerPipeline(LoggingObserver(logger: logger))
        _ = try postLedgerEntry(pipeline)
        let entry = try #require(handler.entries.first)
        let line = structuredLine(entry)
        let frames = strings(entry.metadata["stack"]).compactMap(moduleRelative)
        let listed = LoggedStackSymbolication(symbolicator: Symbolicator()).modules(in: line)

        let scratch = TemporaryDirectory()
        defer { scratch.remove() }
        let logFile = scratch.path + "/errors.log"
        #expect(FileManager.default.createFile(atPath: logFile, contents: Data((line + "\n").utf8)))
        let result = ChildProcess.runAxiom(["symbolicate", "--log", logFile], outputIn: scratch.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        let finished = result.stdout
        #expect(!finished.contains("+0x"), "every frame of the line has debug info here: \(finished)")
        #expect(finished.hasPrefix("[ERROR][2026-11-23T19:00:00.000Z] category=storage"))

        // The test binary's frames (the first ones) as llvm-symbolizer reads them: demangled function (file:line),
        // inlined ones first and joined by ", " within their frame.
        var expected: [String] = []
        for frame in frames {
            let module = try #require(listed.first { $0.name == frame.module })
            guard module.path == listed.first?.path else { break }
            let answer = try #require(
                try LLVMSymbolizerReference.symbolicate(
                    module: module.path, addresses: [frame.offset - 1], scratchDirectory: scratch.path
                ).first)
            let locations = answer.Symbol.enumerated().map { index, location in
                let inlined = index < answer.Symbol.count - 1 ? "[inlined] " : ""
                // Line 0 is DWARF's "no line" (a release build's inlined framework code has it): no place then.
                let place = location.Line > 0 ? " (\(location.FileName):\(location.Line))" : ""
                return inlined + demangled(location.FunctionName, scratch: scratch.path) + place
            }
            expected.append(locations.joined(separator: ", "))
        }
        let stackStart = try #require(finished.range(of: " stack=["))
        let stack = finished[stackStart.upperBound...]
        #expect(expected.count >= 2, "the application's frame and the test's")
        #expect(stack.hasPrefix(expected.joined(separator: ",") + ","), "\(stack)\n\(expected)")
        #expect(expected.first?.contains("AxiomCrashTests.postLedgerEntry(") == true, "\(expected)")
    }

    @Test func theCrashLoggerSymbolicatesFromTheApplicationFrameOn() throws {
        let (logger, handler) = memoryLogger()
        let crashLogger = CrashReportLogger(logger: logger, metricsFactory: TestMetrics())
        let pipeline = try ledgerPipeline(crashLogger)
        _ = try postLedgerEntry(pipeline)
        let entry = try #require(handler.entries.first)
        let frames = strings(entry.metadata["stack"])
        let first = try #require(frames.first)
        #expect(first.hasPrefix("AxiomCrashTests.postLedgerEntry("), "\(frames)")
        #expect(first.contains("Tests/AxiomCrashTests/LoggedStackTests.swift:"), "\(first)")
        #expect(!frames.contains { $0.contains("makeEvent") || Self.isFrameworkFrame($0) }, "\(frames)")
        #expect(structuredLine(entry).firstMatch(of: absoluteAddress) == nil)
        #expect("\(entry.message)".hasPrefix("ledger/CORRUPTED handle in append at AxiomCrashTests.postLedgerEntry("))
    }

    @Test func anErrorRunThreeAwaitsDeepCarriesItsAsyncCallers() async throws {
        let (logger, handler) = memoryLogger()
        let pipeline = try ledgerPipeline(
            LoggingObserver(logger: logger), capturer: UnwindStackCapturer(symbolicates: true))
        let outcome = try await outerLedgerLevel(pipeline)
        #expect(outcome.disposition == .handle)
        let entry = try #require(handler.entries.first)
        let frames = strings(entry.metadata["stack"])
        // The thread's stack ends in the executor; the callers that awaited are read from the async contexts.
        let inner = frames.firstIndex { $0.contains("AxiomCrashTests.innerLedgerLevel(") }
        let middle = frames.firstIndex { $0.contains("AxiomCrashTests.middleLedgerLevel(") }
        let outer = frames.firstIndex { $0.contains("AxiomCrashTests.outerLedgerLevel(") }
        let test = frames.firstIndex { $0.contains("anErrorRunThreeAwaitsDeepCarriesItsAsyncCallers") }
        #expect(inner == 0, "the stack starts where the application ran the operation: \(frames)")
        if let inner, let middle, let outer, let test {
            #expect(inner < middle && middle < outer && outer < test, "\(frames)")
        } else {
            Issue.record("an async caller is missing: \(frames)")
        }
        #expect(frames.prefix(4).allSatisfy { $0.contains("Tests/AxiomCrashTests/LoggedStackTests.swift:") })
        #expect(!frames.contains { Self.isFrameworkFrame($0) }, "\(frames)")
        #expect(!frames.contains { $0.contains("swift_job_run") }, "\(frames)")
        #expect(structuredLine(entry).firstMatch(of: absoluteAddress) == nil)
    }

    @Test func aStackWithoutDescriberLogsNoAddress() {
        let stack = CapturedStack(addresses: [0x55a8_f122_caa2, 0x55a8_f122_0000])
        #expect(stack.logged.frames == ["2 frames, not described (the capturer set no StackDescriber)"])
        #expect(!stack.description.contains("55a8"))
    }

    @Test("a log line's modules and frames are read as the documented grammar says, and the rest stays byte for byte")
    func logLineGrammar() {
        let finisher = LoggedStackSymbolication(symbolicator: Symbolicator())
        func frames(_ line: String) -> [String] {
            finisher.frames(in: line).map { frame in
                let text = String(decoding: Array(line.utf8)[frame.range], as: UTF8.self)
                return "\(frame.module) \(frame.offset.map { String($0, radix: 16) } ?? "nil") \(text)"
            }
        }
        func modules(_ line: String) -> [String] {
            finisher.modules(in: line).map { "\($0.name) \($0.buildID ?? "-") \($0.path)" }
        }
        let line =
            "msg=\"x\" stack=[App+0x1a,libc.so.6+0x29d90] "
            + "stackModules=[App:abcd12:/srv/app/App,libc.so.6:-:/lib/x86_64-linux-gnu/libc.so.6]"
        #expect(frames(line) == ["App 1a App+0x1a", "libc.so.6 29d90 libc.so.6+0x29d90"])
        #expect(modules(line) == ["App abcd12 /srv/app/App", "libc.so.6 - /lib/x86_64-linux-gnu/libc.so.6"])
        // A name may hold `+`: the frame is the last `+0x` and digit of its run.
        #expect(frames("a+0x1+0x2") == ["a+0x1 2 a+0x1+0x2"])
        #expect(frames("App+0x1fzz,x") == ["App 1f App+0x1f"])
        #expect(frames("+0x12 App+0x App+0xZZ App+0X12 (+0x1)").isEmpty)
        #expect(frames("App+0x1ffffffffffffffff") == ["App nil App+0x1ffffffffffffffff"])
        #expect(frames("Äpp+0x10") == ["Äpp 10 Äpp+0x10"])
        // A build-id is `-` or two or more lowercase hex digits; a path is absolute, and ends at whitespace, `,`, `]`
        // or `"`.
        #expect(modules("App:a:/x App:AB:/x App:ab:rel/x App::/x :ab:/x").isEmpty)
        #expect(modules("App:ab:/x:y[z],B:-:/b\"") == ["App ab /x:y[z", "B - /b"])
        // An entry that fails may hold the start of the next.
        #expect(modules("x:y:App:ab:/p") == ["App ab /p"])
        // Frames of modules nowhere to be found, and bytes that are no frame, stay as they were.
        let unknown = "é \t stack=[Gone+0x10,\u{1F600}+0x2] stackModules=[Gone:00ff:/nonexistent/Gone] \r\n"
        #expect(finisher.symbolicate(line: unknown) == unknown)
        #expect(finisher.symbolicate(line: "no stack here") == "no stack here")
    }

}
