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

/// libdwarf, opened on first use. It is not linked: a program that never reads a module through libdwarf (the native
/// reader reads every module whose debug sections are not compressed) never loads it, nor libelf, libz and liblzma
/// with it, and a machine without `libdwarf.so.1` runs all the same. Whether it could be opened (`libdwarf.so.1`,
/// with every function below): the first call opens it.
int axiom_libdwarf_available(void);

/// The libdwarf functions this package calls, each with the signature of `dwarf_` and the rest of its name. When
/// libdwarf could not be opened, each returns `DW_DLV_ERROR` (NULL, or nothing) without touching its arguments.
int axiom_libdwarf_attr(Dwarf_Die p0, Dwarf_Half p1, Dwarf_Attribute * p2, Dwarf_Error * p3);
int axiom_libdwarf_child(Dwarf_Die p0, Dwarf_Die * p1, Dwarf_Error * p2);
void axiom_libdwarf_dealloc_attribute(Dwarf_Attribute p0);
void axiom_libdwarf_dealloc_die(Dwarf_Die p0);
void axiom_libdwarf_dealloc_error(Dwarf_Debug p0, Dwarf_Error p1);
int axiom_libdwarf_dealloc_rnglists_head(Dwarf_Rnglists_Head p0);
int axiom_libdwarf_dieoffset(Dwarf_Die p0, Dwarf_Off * p1, Dwarf_Error * p2);
char* axiom_libdwarf_errmsg(Dwarf_Error p0);
int axiom_libdwarf_finish(Dwarf_Debug p0, Dwarf_Error * p1);
int axiom_libdwarf_formsdata(Dwarf_Attribute p0, Dwarf_Signed * p1, Dwarf_Error * p2);
int axiom_libdwarf_formstring(Dwarf_Attribute p0, char ** p1, Dwarf_Error * p2);
int axiom_libdwarf_formudata(Dwarf_Attribute p0, Dwarf_Unsigned * p1, Dwarf_Error * p2);
int axiom_libdwarf_get_ranges_b(Dwarf_Debug p0, Dwarf_Off p1, Dwarf_Die p2, Dwarf_Off * p3, Dwarf_Ranges ** p4, Dwarf_Signed * p5, Dwarf_Unsigned * p6, Dwarf_Error * p7);
int axiom_libdwarf_get_rnglists_entry_fields_a(Dwarf_Rnglists_Head p0, Dwarf_Unsigned p1, unsigned * p2, unsigned * p3, Dwarf_Unsigned * p4, Dwarf_Unsigned * p5, Dwarf_Bool * p6, Dwarf_Unsigned * p7, Dwarf_Unsigned * p8, Dwarf_Error * p9);
int axiom_libdwarf_global_formref(Dwarf_Attribute p0, Dwarf_Off * p1, Dwarf_Error * p2);
int axiom_libdwarf_hasattr(Dwarf_Die p0, Dwarf_Half p1, Dwarf_Bool * p2, Dwarf_Error * p3);
int axiom_libdwarf_highpc_b(Dwarf_Die p0, Dwarf_Addr * p1, Dwarf_Half * p2, enum Dwarf_Form_Class * p3, Dwarf_Error * p4);
int axiom_libdwarf_init_path(const char * p0, char * p1, unsigned int p2, Dwarf_Unsigned p3, unsigned int p4, Dwarf_Handler p5, Dwarf_Ptr p6, Dwarf_Debug * p7, const char * p8, Dwarf_Unsigned p9, Dwarf_Unsigned * p10, Dwarf_Error * p11);
int axiom_libdwarf_line_srcfileno(Dwarf_Line p0, Dwarf_Unsigned * p1, Dwarf_Error * p2);
int axiom_libdwarf_lineaddr(Dwarf_Line p0, Dwarf_Addr * p1, Dwarf_Error * p2);
int axiom_libdwarf_lineendsequence(Dwarf_Line p0, Dwarf_Bool * p1, Dwarf_Error * p2);
int axiom_libdwarf_lineno(Dwarf_Line p0, Dwarf_Unsigned * p1, Dwarf_Error * p2);
int axiom_libdwarf_lineoff_b(Dwarf_Line p0, Dwarf_Unsigned * p1, Dwarf_Error * p2);
int axiom_libdwarf_lowpc(Dwarf_Die p0, Dwarf_Addr * p1, Dwarf_Error * p2);
int axiom_libdwarf_next_cu_header_d(Dwarf_Debug p0, Dwarf_Bool p1, Dwarf_Unsigned * p2, Dwarf_Half * p3, Dwarf_Off * p4, Dwarf_Half * p5, Dwarf_Half * p6, Dwarf_Half * p7, Dwarf_Sig8 * p8, Dwarf_Unsigned * p9, Dwarf_Unsigned * p10, Dwarf_Half * p11, Dwarf_Error * p12);
int axiom_libdwarf_offdie_b(Dwarf_Debug p0, Dwarf_Off p1, Dwarf_Bool p2, Dwarf_Die * p3, Dwarf_Error * p4);
int axiom_libdwarf_prologue_end_etc(Dwarf_Line p0, Dwarf_Bool * p1, Dwarf_Bool * p2, Dwarf_Unsigned * p3, Dwarf_Unsigned * p4, Dwarf_Error * p5);
void axiom_libdwarf_ranges_dealloc(Dwarf_Debug p0, Dwarf_Ranges * p1, Dwarf_Signed p2);
int axiom_libdwarf_rnglists_get_rle_head(Dwarf_Attribute p0, Dwarf_Half p1, Dwarf_Unsigned p2, Dwarf_Rnglists_Head * p3, Dwarf_Unsigned * p4, Dwarf_Unsigned * p5, Dwarf_Error * p6);
int axiom_libdwarf_set_de_alloc_flag(int p0);
int axiom_libdwarf_siblingof_b(Dwarf_Debug p0, Dwarf_Die p1, Dwarf_Bool p2, Dwarf_Die * p3, Dwarf_Error * p4);
int axiom_libdwarf_srcfiles(Dwarf_Die p0, char *** p1, Dwarf_Signed * p2, Dwarf_Error * p3);
int axiom_libdwarf_srclang(Dwarf_Die p0, Dwarf_Unsigned * p1, Dwarf_Error * p2);
int axiom_libdwarf_srclines_b(Dwarf_Die p0, Dwarf_Unsigned * p1, Dwarf_Small * p2, Dwarf_Line_Context * p3, Dwarf_Error * p4);
int axiom_libdwarf_srclines_comp_dir(Dwarf_Line_Context p0, const char ** p1, Dwarf_Error * p2);
void axiom_libdwarf_srclines_dealloc_b(Dwarf_Line_Context p0);
int axiom_libdwarf_srclines_files_data_b(Dwarf_Line_Context p0, Dwarf_Signed p1, const char ** p2, Dwarf_Unsigned * p3, Dwarf_Unsigned * p4, Dwarf_Unsigned * p5, Dwarf_Form_Data16 ** p6, Dwarf_Error * p7);
int axiom_libdwarf_srclines_files_indexes(Dwarf_Line_Context p0, Dwarf_Signed * p1, Dwarf_Signed * p2, Dwarf_Signed * p3, Dwarf_Error * p4);
int axiom_libdwarf_srclines_from_linecontext(Dwarf_Line_Context p0, Dwarf_Line ** p1, Dwarf_Signed * p2, Dwarf_Error * p3);
int axiom_libdwarf_srclines_include_dir_count(Dwarf_Line_Context p0, Dwarf_Signed * p1, Dwarf_Error * p2);
int axiom_libdwarf_srclines_include_dir_data(Dwarf_Line_Context p0, Dwarf_Signed p1, const char ** p2, Dwarf_Error * p3);
int axiom_libdwarf_srclines_version(Dwarf_Line_Context p0, Dwarf_Unsigned * p1, Dwarf_Small * p2, Dwarf_Error * p3);
int axiom_libdwarf_tag(Dwarf_Die p0, Dwarf_Half * p1, Dwarf_Error * p2);
int axiom_libdwarf_whatform(Dwarf_Attribute p0, Dwarf_Half * p1, Dwarf_Error * p2);

/// CRC-32 as `.gnu_debuglink` uses it (the zlib polynomial, reflected; `crc` is the value so far, 0 to start), which
/// libdwarf's `dwarf_basic_crc32` also computes; here so that checking a debug link does not need libdwarf.
unsigned int axiom_debuglink_crc32(const unsigned char *bytes, size_t count, unsigned int crc);

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
