// libFuzzer target: the ELF reader (`AxiomELF`) on any bytes a plugin directory or a module path could hold, through
// both of its callers: the checks the plugin host makes on a file before `dlopen` (`ELFImage.check`, reading the
// descriptor with pread) and the build-id it reads for the verdict cache's key, and the symbolicator's image of a
// mapped file (section headers and names, `.symtab`/`.dynsym` function symbols, build-id, `.gnu_debuglink`).
//
// Each caller either reads the file or fails with a reason and a detail; neither traps. The bytes go to an unlinked
// temporary file: the host reads its descriptor, the symbolicator maps it through `/proc/self/fd`. The DWARF read
// from a module is the Symbolication target's.
//
// Seeds (Tests/Fuzz/Corpus/ELF): Tests/PluginFixtures/fixture_plugin.c built small (`cc -shared -fPIC -O1
// -Wl,-z,max-page-size=0x10 -Wl,-z,noseparate-code -Wl,-z,norelro`), with DT_GNU_HASH and with DT_HASH
// (`-Wl,--hash-style=sysv`), each also without section headers (e_shoff = 0, read through PT_DYNAMIC), one without
// the entry symbol, the two inputs that once trapped the host (see LoaderRefusalTests), and the Symbolication
// target's seed without DWARF (sym-nodebug.so, with `.symtab`).

import Foundation
import FuzzSupport

@testable import AxiomPlugins
@testable import AxiomSymbolication

/// One file for every input, rewritten each time: the fuzzer runs inputs one after another on one thread.
private let descriptor: Int32 = {
    var template = Array((NSTemporaryDirectory() + "/axiom-fuzz-elf-XXXXXX").utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "mkstemp failed")
    unlink(template)
    return fd
}()

private let path = "/proc/self/fd/\(descriptor)"

func fuzzELF(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let staged = ftruncate(descriptor, 0) == 0 && pwrite(descriptor, bytes, count, 0) == count
    precondition(staged, "cannot stage the input")
    // The entry the host looks for, and a name that hashes elsewhere, so both hash-chain outcomes are reached.
    for symbol in ["axiom_plugin_entry_v1", "x"] {
        if let refusal = AxiomPlugins.ELFImage.check(descriptor: descriptor, size: count, exporting: symbol) {
            precondition(!refusal.detail.isEmpty, "a refusal (\(refusal.code)) without a detail")
        }
    }
    let hostID = AxiomPlugins.ELFImage.buildID(descriptor: descriptor, size: count)
    if let hostID { precondition(hostID.count <= count, "a build-id longer than the file") }

    do {
        let image = try AxiomSymbolication.ELFImage(path: path)
        for symbol in image.functionSymbols().prefix(64) { _ = image.string(at: symbol.nameOffset) }
        _ = image.debugLink()
        _ = image.hasDWARF
        precondition(
            image.buildID() == hostID?.map { String(format: "%02x", $0) }.joined(),
            "the host and the symbolicator read another build-id")
    } catch {
        precondition(!error.message.isEmpty, "an error without a message")
    }
    return 0
}

@_cdecl("FuzzELF_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzELF)
}
