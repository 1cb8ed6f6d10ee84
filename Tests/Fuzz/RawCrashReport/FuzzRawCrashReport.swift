// libFuzzer target: `RawCrashReport(bytes:)` on any bytes a crash directory could hold (a report cut short,
// corrupted, or written on another machine), and what the processor does next with a report it accepts.
//
// Parsing either returns a report or throws `RawReportError`; it never traps. An accepted report is rendered as
// JSON and text, as the processor does. Its module paths are replaced by ones that do not exist, so the fuzzer
// cannot make the symbolicator open files of this machine: symbolication has its own target.

@_spi(Fuzzing) import AxiomCrash
import AxiomSymbolication
import FuzzSupport

private let symbolicator = Symbolicator()

func fuzzRawCrashReport(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    do {
        try RawCrashReportFuzzing.exercise(input, symbolicator: symbolicator)
    } catch {
        precondition(!error.description.isEmpty, "an error without a description")
    }
    return 0
}

@_cdecl("FuzzRawCrashReport_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzRawCrashReport)
}
