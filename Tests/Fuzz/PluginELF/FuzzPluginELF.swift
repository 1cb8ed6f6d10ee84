// libFuzzer target: the checks the plugin host makes on a file before `dlopen` (`ELFImage.check`), on any bytes
// a plugin directory could hold.
//
// The check either accepts the file or names a reason and a detail; it never traps. The bytes go to an unlinked
// temporary file, since the check reads through a file descriptor with pread, as the host does.
//
// Seeds (Tests/Fuzz/Corpus/PluginELF): Tests/PluginFixtures/fixture_plugin.c built small (`cc -shared -fPIC -O1
// -Wl,-z,max-page-size=0x10 -Wl,-z,noseparate-code -Wl,-z,norelro`), with DT_GNU_HASH and with DT_HASH
// (`-Wl,--hash-style=sysv`), each also without section headers (e_shoff = 0, read through PT_DYNAMIC), one without
// the entry symbol, and the two inputs that once trapped (see LoaderRefusalTests).

import Foundation

@testable import AxiomPlugins

/// One file for every input, rewritten each time: the fuzzer runs inputs one after another on one thread.
private let descriptor: Int32 = {
    var template = Array((NSTemporaryDirectory() + "/axiom-fuzz-elf-XXXXXX").utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "mkstemp failed")
    unlink(template)
    return fd
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPluginELF(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let staged = ftruncate(descriptor, 0) == 0 && pwrite(descriptor, bytes, count, 0) == count
    precondition(staged, "cannot stage the input")
    // The entry the host looks for, and a name that hashes elsewhere, so both hash-chain outcomes are reached.
    for symbol in ["axiom_plugin_entry_v1", "x"] {
        if let (reason, detail) = ELFImage.check(descriptor: descriptor, size: count, exporting: symbol) {
            precondition(!detail.isEmpty, "a refusal (\(reason)) without a detail")
        }
    }
    return 0
}

// SwiftPM links an executable's `main` to `<Module>_main` (so that tests can link the executable's code), and
// a fuzz target has no main of its own: this one runs libFuzzer's driver on the target.
@_cdecl("FuzzPluginELF_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzPluginELF)
}

/// libFuzzer's entry for a program that brings its own main; no header declares it to Swift:
/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
