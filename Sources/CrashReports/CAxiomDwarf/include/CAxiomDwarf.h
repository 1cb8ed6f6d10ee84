// C shim for AxiomSymbolication: makes libdwarf, and the few glibc/Swift-runtime functions that
// Swift cannot see on its own, visible to Swift. Keep this small: the logic lives in Swift.
#ifndef CAXIOM_DWARF_H
#define CAXIOM_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Exported by libswiftCore (not declared in any header Swift imports). Returns a malloc'ed,
/// NUL-terminated demangled name when `outputBuffer` is NULL, or NULL when the input is not a
/// Swift symbol. `flags` must be 0.
char *swift_demangle(const char *mangledName, size_t mangledNameLength, char *outputBuffer,
                     size_t *outputBufferSize, uint32_t flags);

/// Finds the loaded module whose PT_LOAD segments contain `address`, using `dl_iterate_phdr`
/// (invisible to Swift because Swift's Glibc module is built without _GNU_SOURCE).
/// On success returns 1, copies the module path (empty for the main executable) into `pathBuffer`
/// (truncated to `pathBufferSize - 1` bytes, NUL-terminated) and stores the load bias
/// (`dlpi_addr`) in `loadBias`. Returns 0 when no module contains the address.
int axiom_dwarf_find_loaded_module(uintptr_t address, char *pathBuffer, size_t pathBufferSize,
                                   uint64_t *loadBias);

/// How many processors this process may run on (its affinity mask, as `taskset` sets it; `sched_getaffinity`
/// needs _GNU_SOURCE); 1 when it cannot be read.
int axiom_dwarf_usable_processors(void);

/// Copies the GNU build-id of the loaded module whose PT_LOAD segments contain `address` into `buffer` (at most
/// `capacity` bytes), read from the module's notes in memory. Returns the number of bytes copied: 0 when no module
/// contains the address or it has no build-id.
int axiom_dwarf_loaded_module_build_id(uintptr_t address, unsigned char *buffer, size_t capacity);

/// Whether libdebuginfod (`libdebuginfod.so.1`) could be opened. It is not linked: the first call opens it with
/// `dlopen`, so a program that never asks a debuginfod server never loads it and the network libraries it needs.
int axiom_debuginfod_available(void);

/// Asks debuginfod servers (libdebuginfod) for the debug file of `buildID` (raw bytes). `urls`
/// (space-separated) and `cachePath` replace `DEBUGINFOD_URLS` and `DEBUGINFOD_CACHE_PATH` in the
/// process environment (libdebuginfod reads them only from there); NULL keeps the environment's value.
/// `timeoutSeconds` (at least 1) becomes `DEBUGINFOD_TIMEOUT`, libdebuginfod's bound on connecting and on a
/// transfer that stalls; the whole query gives up after `deadlineSeconds` (at least 1, at most `timeoutSeconds`),
/// a server that is down or never answers included. Queries asking for the same urls, cache and timeout run
/// concurrently; one asking for other values waits until the running ones end. On success returns 0 and stores
/// the cached file's path, malloc'ed, in `pathOut` (the caller frees it); otherwise returns a negative errno
/// (`-ENOENT`: no server has it; `-ELIBACC`: libdebuginfod could not be loaded, see
/// `axiom_debuginfod_available`).
int axiom_debuginfod_find_debuginfo(const unsigned char *buildID, int buildIDSize, const char *urls,
                                    const char *cachePath, int timeoutSeconds, int deadlineSeconds,
                                    char **pathOut);

/// ThreadSanitizer cannot see `Synchronization.Mutex` on Linux: its lock is a futex taken inside the Swift
/// runtime, which is not instrumented, so TSan takes the data a mutex guards for racy. These tell TSan that a
/// critical section starts (acquire) and ends (release) on `lock`. Without TSan the runtime's functions are
/// weak undefined symbols, null, and each call costs one test.
__attribute__((weak)) void __tsan_acquire(void *addr);
__attribute__((weak)) void __tsan_release(void *addr);

static inline void axiom_tsan_acquire(const void *lock) {
    if (__tsan_acquire) __tsan_acquire((void *)lock);
}

static inline void axiom_tsan_release(const void *lock) {
    if (__tsan_release) __tsan_release((void *)lock);
}

#ifdef __cplusplus
}
#endif

#endif
