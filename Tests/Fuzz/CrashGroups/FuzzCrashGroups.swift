// libFuzzer target: grouping's reader of JSON crash reports (`axiom crash-reports group`) on any bytes a crash
// folder gathered from many machines could hold.
//
// Reading either returns a report, which then groups with a copy of itself from another host, or refuses the file
// with a reason that never quotes it; it never traps.

@_spi(Fuzzing) import AxiomCrash
import FuzzSupport

func fuzzCrashGroups(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = CrashGroupingFuzzing.exercise(Array(UnsafeBufferPointer(start: bytes, count: count)))
    return 0
}

@_cdecl("FuzzCrashGroups_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzCrashGroups)
}
