// What every fuzz target shares: handing the process to libFuzzer's driver.
//
// SwiftPM links an executable with its entry point renamed to `<Module>_main`, so a fuzz target cannot leave
// `main` to libFuzzer's runtime. Each target defines that entry point and calls `runLibFuzzer` with the function
// that takes one input.

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Runs libFuzzer's driver with the process's arguments (corpus folders, `-max_total_time=…`, …) and
/// `testOneInput` as the target. Returns the driver's exit status.
public func runLibFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, testOneInput)
}
