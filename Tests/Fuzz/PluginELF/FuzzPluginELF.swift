// libFuzzer target: the checks the plugin host makes on a file before `dlopen` (`ELFImage.check`), and the
// build-id it reads for the verdict cache's key (`ELFImage.buildID`), on any bytes a plugin directory could hold.
//
// The check either accepts the file or names a reason and a detail; it never traps. The bytes go to an unlinked
// temporary file, since the check reads through a file descriptor with pread, as the host does.
//
// Seeds (Tests/Fuzz/Corpus/PluginELF): Tests/PluginFixtures/fixture_plugin.c built small (`cc -shared -fPIC -O1
// -Wl,-z,max-page-size=0x10 -Wl,-z,noseparate-code -Wl,-z,norelro`), with DT_GNU_HASH and with DT_HASH
// (`-Wl,--hash-style=sysv`), each also without section headers (e_shoff = 0, read through PT_DYNAMIC), one without
// the entry symbol, and the two inputs that once trapped (see LoaderRefusalTests).

import Foundation
import FuzzSupport

@testable import AxiomPlugins

/// One file for every input, rewritten each time: the fuzzer runs inputs one after another on one thread.
private let descriptor: Int32 = {
    var template = Array((NSTemporaryDirectory() + "/axiom-fuzz-elf-XXXXXX").utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "mkstemp failed")
    unlink(template)
    return fd
}()

func fuzzPluginELF(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let staged = ftruncate(descriptor, 0) == 0 && pwrite(descriptor, bytes, count, 0) == count
    precondition(staged, "cannot stage the input")
    // The entry the host looks for, and a name that hashes elsewhere, so both hash-chain outcomes are reached.
    for symbol in ["axiom_plugin_entry_v1", "x"] {
        if let (reason, detail) = ELFImage.check(descriptor: descriptor, size: count, exporting: symbol) {
            precondition(!detail.isEmpty, "a refusal (\(reason)) without a detail")
        }
    }
    if let id = ELFImage.buildID(descriptor: descriptor, size: count) {
        precondition(id.count <= count, "a build-id longer than the file")
    }
    return 0
}

@_cdecl("FuzzPluginELF_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzPluginELF)
}
