// libFuzzer target: the symbolicator on any bytes a module file could hold, for its DWARF readers: the in-place one
// (unit headers, abbreviations, attribute forms, range lists, line programs, names, the name index) and libdwarf's. The ELF reader
// under it has a target of its own (ELF), which reads the file as both the plugin host and the symbolicator do.
//
// The bytes are written to a temporary file (the readers open a path) and looked up by a fresh `Symbolicator`, so
// no cache carries over from one input to the next. Addresses looked up: the function symbols the file declares,
// their neighbours, a few fixed ones and one taken from the input; once one at a time, and once read ahead as a
// batch (which finds functions through the name index). Every answer is frames or a `SymbolicationError`; nothing
// traps.
//
// Seeds (Tests/Fuzz/Corpus/Symbolication), each a few KB: this C file built with
// `cc -shared -fPIC -Wl,-z,max-page-size=0x10 -Wl,-z,noseparate-code -Wl,-z,norelro` and `-g -O1` (sym-dwarf5),
// `-gdwarf-4 -O1` (sym-dwarf4), `-g -O0 -ffunction-sections` (sym-dwarf5-O0) and `-O1` (sym-nodebug); clang's
// `-gdwarf-5 -gpubnames -O1` with `-fuse-ld=bfd` (sym-names, with a name index, `.debug_names`); and the inputs
// that made libdwarf free a range list twice (crash-rnglists-double-free) or leak in dwarf_highpc_b (leak-highpc-*).
// trap-line-length: sym-dwarf5 with a .debug_line unit length of 2, on which the in-place DWARF reader once trapped.
//
//     static inline int square(int value) { return value * value; }
//     __attribute__((noinline)) static int helper(int value) {
//         int total = 0;
//         for (int i = 0; i < value; i++) total += square(i);
//         return total;
//     }
//     int axiom_seed_entry(int value) { return helper(value) + square(value); }
//     int axiom_seed_other(const char *text) {
//         int length = 0;
//         while (text[length]) length++;
//         return length;
//     }

import Foundation
import FuzzSupport

@testable import AxiomSymbolication

private let path = NSTemporaryDirectory() + "/axiom-fuzz-symbolication-\(getpid()).so"

func fuzzSymbolication(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0 && write(fd, bytes, count) == count, "cannot stage the input")
    close(fd)

    let symbolicator = Symbolicator()
    var addresses: [UInt64] = [0, 0x1000, 0x1100, 0x1234, UInt64.max]
    if count >= 8 {
        addresses.append(UnsafeRawPointer(bytes + count - 8).loadUnaligned(as: UInt64.self))
    }
    if let symbols = try? symbolicator.functionSymbols(modulePath: path) {
        for symbol in symbols.prefix(16) {
            addresses += [symbol.address, symbol.address &+ 1, symbol.address &+ symbol.size, symbol.address &- 1]
        }
    }
    for address in addresses {
        do {
            let frames = try symbolicator.symbolicate(modulePath: path, address: address)
            precondition(!frames.isEmpty, "no frames and no error")
            _ = "\(frames)"
        } catch {
            precondition(!error.message.isEmpty, "an error without a message")
        }
        _ = try? symbolicator.symbolicate(pc: address, loadBias: 0x1000, modulePath: path, isReturnAddress: true)
    }
    // A batch: its units read ahead, on several threads where there are several cores.
    let batch = Symbolicator()
    batch.prepare(modulePath: path, addresses: addresses)
    for address in addresses {
        do {
            let frames = try batch.symbolicate(modulePath: path, address: address)
            precondition(!frames.isEmpty, "no frames and no error")
        } catch {
            precondition(!error.message.isEmpty, "an error without a message")
        }
    }
    return 0
}

// libdwarf 20210528 leaks errors it makes and then drops or overwrites: dwarf_gnu_debuglink for a malformed
// .gnu_debuglink or build-id note while it looks for a separate debug file, and dwarf_highpc_b on some corrupt
// DW_AT_high_pc values (the symbolicator frees every error it is handed, and passes only forms dwarf_highpc_b
// reads, which avoids the most common one). Leaks in the library, a few hundred bytes per corrupt file, that no
// caller can free: suppressed by name; any other leak, ours among them, still fails the run. Naming the function
// needs full malloc stacks: libdwarf has no frame pointers, so the fast unwinder stops inside it.
@_cdecl("__lsan_default_suppressions")
func leakSuppressions() -> UnsafePointer<CChar> { cString("leak:dwarf_gnu_debuglink\nleak:dwarf_highpc_b\n") }

// Called by the sanitizer before any Swift global exists: the text is a static literal.
@_cdecl("__asan_default_options")
func sanitizerOptions() -> UnsafePointer<CChar> { cString("fast_unwind_on_malloc=0") }

private func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("FuzzSymbolication_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzSymbolication)
}
