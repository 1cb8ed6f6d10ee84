// libFuzzer target: `RawCrashReport(bytes:)` on any bytes a crash directory could hold (a report cut short,
// corrupted, or written on another machine), and what the processor does next with a report it accepts.
//
// Parsing either returns a report or throws `RawReportError`; it never traps. An accepted report is rendered as
// JSON and text, as the processor does. Its module paths are replaced by ones that do not exist, so the fuzzer
// cannot make the symbolicator open files of this machine: symbolication has its own target.

import AxiomCrash
import AxiomSymbolication

private let symbolicator = Symbolicator()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRawCrashReport(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    do {
        var report = try RawCrashReport(bytes: input)
        for index in report.modules.indices {
            _ = report.modules[index].name
            _ = report.modules[index].buildIDHex
            report.modules[index].path = "/nonexistent/axiom-fuzz/\(index)"
        }
        for frame in report.frames { _ = report.module(containing: frame) }
        let symbolicated = SymbolicatedCrashReport(raw: report, symbolicator: symbolicator, platform: "fuzz")
        precondition(symbolicated.frames.count >= report.frames.count, "frames lost")
        _ = symbolicated.json
        _ = symbolicated.text
        _ = symbolicated.crashSite
        _ = symbolicated.timestamp
    } catch {
        precondition(!error.description.isEmpty, "an error without a description")
    }
    return 0
}

// SwiftPM links an executable's `main` to `<Module>_main` (so that tests can link the executable's code), and
// a fuzz target has no main of its own: this one runs libFuzzer's driver on the target.
@_cdecl("FuzzRawCrashReport_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzRawCrashReport)
}

/// libFuzzer's entry for a program that brings its own main; no header declares it to Swift:
/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
