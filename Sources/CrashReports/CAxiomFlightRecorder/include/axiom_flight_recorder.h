// The flight recorder: what the application was doing just before a crash, kept where a
// fatal-signal handler can read it without taking a lock or allocating.
//
//   - the last AXIOM_RECENT_ERROR_CAPACITY errors that the application's pipelines decided
//     (written by Axiom's ErrorPipeline, one fixed-size slot each, in a ring that the recording thread
//     owns, or one that the threads beyond AXIOM_RECENT_ERROR_SHARDS share; merged by time when read);
//   - the plugins loaded into the process (written by AxiomPlugins, pre-encoded bytes).
//
// The crash handler (CAxiomCrash) copies both into the raw report. Nothing here depends on
// the crash reporter being installed: recording costs the same either way, and is cheap
// (a coarse clock read, plain loads and stores on the thread's own shard with no atomic
// read-modify-write, the code's and the layer's names as indexes into a table of names, and
// the operation's bytes, at most 56).
#ifndef AXIOM_FLIGHT_RECORDER_H
#define AXIOM_FLIGHT_RECORDER_H

#include <stddef.h>
#include <stdint.h>

/// How many decided errors a report keeps: the newest of all threads. Each ring keeps as many of
/// its own.
#define AXIOM_RECENT_ERROR_CAPACITY 32
/// How many rings threads can own, one thread each, so that a thread records with no atomic
/// read-modify-write and threads on different cores do not write the same memory. A thread owns one
/// from its first record until it exits; threads beyond this many share one more ring.
#define AXIOM_RECENT_ERROR_SHARDS 16
/// Bytes kept of `domain/code`, of the layer's name and of the operation's name (longer ones are cut).
#define AXIOM_RECENT_ERROR_CODE_LENGTH 64
#define AXIOM_RECENT_ERROR_LAYER_LENGTH 24
#define AXIOM_RECENT_ERROR_OPERATION_LENGTH 56

/// The fate a layer carried out (Disposition in Axiom).
enum {
    AXIOM_RECENT_ERROR_IGNORED = 1,
    AXIOM_RECENT_ERROR_RECOVERED = 2,
    AXIOM_RECENT_ERROR_ESCALATED = 3,
    AXIOM_RECENT_ERROR_HANDLED = 4,
};

/// One decided error, as a report keeps it (a ring slot keeps the names' indexes instead, and the crash
/// handler copies the names in). Plain data, no pointers: the raw report stores it byte for byte
/// (record type AXIOM_CRASH_RECORD_RECENT_ERROR), so its layout is part of the format.
struct axiom_recent_error {
    int64_t seconds;             //   0: CLOCK_REALTIME_COARSE when the episode ended (to a few ms)
    int64_t nanoseconds;         //   8
    uint32_t attempt;            //  16: which attempt failed last, from 1
    uint8_t resolution;          //  20: AXIOM_RECENT_ERROR_*
    uint8_t code_length;         //  21: bytes used of code
    uint8_t layer_length;        //  22
    uint8_t operation_length;    //  23
    char code[AXIOM_RECENT_ERROR_CODE_LENGTH];            //  24: `domain/code`, no NUL
    char layer[AXIOM_RECENT_ERROR_LAYER_LENGTH];          //  88: the layer that decided
    char operation[AXIOM_RECENT_ERROR_OPERATION_LENGTH];  // 112
};                                                        // 168

#define AXIOM_RECENT_ERROR_LENGTH 168
_Static_assert(sizeof(struct axiom_recent_error) == AXIOM_RECENT_ERROR_LENGTH, "recent error layout");

/// How many distinct names (codes' `domain/code`, layers' names) the recorder's table of names keeps. A name
/// beyond them is recorded as AXIOM_RECORDED_NAME_NONE, which a report shows empty.
#define AXIOM_RECORDED_NAME_CAPACITY (1u << 20)
/// The index of a name the table does not keep.
#define AXIOM_RECORDED_NAME_NONE 0xFFFFFFFFu

/// The index of `bytes` (cut at AXIOM_RECENT_ERROR_CODE_LENGTH) in the recorder's table of names, from 1, adding it
/// the first time; AXIOM_RECORDED_NAME_NONE when the table is full or memory could not be mapped (never 0, so a
/// caller can keep 0 for "not looked up yet"). A slot keeps a name's index, and the
/// crash handler copies the name's bytes out of the table into the report: a record writes four bytes instead of
/// copying the name. The table is memory the recorder maps for itself (not the heap), append-only, each entry
/// published before its index is returned, so a crash handler reads it with plain loads. Takes a lock and may map
/// memory: pipelines call it once per code and per layer, never per error. Not for a signal handler.
uint32_t axiom_flight_recorder_name(const uint8_t *bytes, size_t length);

/// Records one decided error whose code and layer are names of the table (axiom_flight_recorder_name; an index the
/// table does not hold, AXIOM_RECORDED_NAME_NONE or 0, is shown empty): what the pipelines call. In the calling
/// thread's own shard, the usual case: no lock, no atomic read-modify-write, no write to memory that other threads
/// write. A thread's first record claims a free shard (pthread_setspecific, which allocates, once, only when its key
/// is not among the process's first 32); the thread gives it back when it exits. A thread that finds none free
/// writes the shared overflow ring with atomic operations and looks again every 64 records; there, when
/// AXIOM_RECENT_ERROR_CAPACITY other threads are writing at the same moment, its event is dropped rather than
/// waited for. A report keeps the layer's first AXIOM_RECENT_ERROR_LAYER_LENGTH bytes and the operation's first
/// AXIOM_RECENT_ERROR_OPERATION_LENGTH.
void axiom_flight_recorder_record(uint32_t code, uint32_t layer, const uint8_t *operation, size_t operation_length,
                                  uint32_t attempt, uint8_t resolution);

/// axiom_flight_recorder_record with the code and the layer given as bytes and a length (not NUL-terminated):
/// `code` is `domain/code`. Finds both in the table of names first, under its lock: for programs and tests that
/// record by hand, not for a hot path.
void axiom_flight_recorder_record_error(const uint8_t *code, size_t code_length, const uint8_t *layer,
                                        size_t layer_length, const uint8_t *operation, size_t operation_length,
                                        uint32_t attempt, uint8_t resolution);

/// Copies the newest recorded errors of all rings, oldest first, into `out` (at most
/// `capacity`); returns how many. Entries are ordered by their time, then by ring: one thread's
/// errors keep their order; errors of different threads within one tick of the coarse clock (a
/// few milliseconds) may appear in either order. Async-signal-safe: a slot being written at
/// that moment is left out.
size_t axiom_flight_recorder_copy_errors(struct axiom_recent_error *out, size_t capacity);

/// The shard the calling thread owns (0 to AXIOM_RECENT_ERROR_SHARDS - 1), or AXIOM_RECENT_ERROR_SHARDS
/// when it owns none (it has not recorded yet, or it records on the overflow ring). Claims nothing.
/// Other per-thread counts (the metrics observer's stripes) use it: a thread that owns shard i is
/// the only writer of stripe i, the others share the last stripe.
/// Inline: one load from the thread pointer, no call.
static inline uint32_t axiom_flight_recorder_thread_shard(void) {
    // The calling thread's ring + 1, kept by the recorder; read here, never written.
    extern __thread uint32_t axiom_flight_recorder_thread_ring __attribute__((tls_model("initial-exec")));
    uint32_t index = axiom_flight_recorder_thread_ring - 1;
    return index < AXIOM_RECENT_ERROR_SHARDS ? index : AXIOM_RECENT_ERROR_SHARDS;
}
/// How many different values axiom_flight_recorder_thread_shard returns.
#define AXIOM_RECENT_ERROR_STRIPES (AXIOM_RECENT_ERROR_SHARDS + 1)

/// How many errors were recorded since the process started (including those the ring no longer holds).
uint64_t axiom_flight_recorder_error_count(void);

/// Whether the calling thread owns a shard now (1) or records on the shared overflow ring, or has not
/// recorded yet (0). For tests and diagnostics.
int axiom_flight_recorder_thread_owns_shard(void);

/// Replaces the loaded-plugin list with `length` bytes (AXIOM_CRASH_RECORD_PLUGINS's payload:
/// see axiom_crash_format.h). The bytes are copied. Returns 0, or -1 when out of memory.
int axiom_flight_recorder_set_plugins(const uint8_t *bytes, size_t length);

/// The current plugin list's bytes and length (NULL and 0 when none was set).
/// Async-signal-safe; the bytes stay valid for the life of the process.
const uint8_t *axiom_flight_recorder_plugins(size_t *length);

/// How many tasks can have a trace announced at the same moment; an announcement beyond that is not kept.
#define AXIOM_ACTIVE_TRACE_CAPACITY 256

/// A trace context: W3C trace and span ids, as bytes.
struct axiom_active_trace {
    uint8_t trace_id[16];
    uint8_t span_id[8];
};

/// Announces that the Swift task running on this thread works under `trace` until
/// axiom_flight_recorder_leave_trace(slot): a crash on whatever thread runs that task then
/// names the trace. Returns the slot to leave, or -1 when not called from a task or when
/// every slot is taken. No allocation, no lock.
int axiom_flight_recorder_enter_trace(const struct axiom_active_trace *trace);

/// Ends an announcement made by axiom_flight_recorder_enter_trace (a slot of -1 is ignored).
void axiom_flight_recorder_leave_trace(int slot);

/// The trace most recently announced by the task running on this thread, if any: returns 1
/// and fills `out`, else 0. Async-signal-safe (a thread-local read and atomic loads).
int axiom_flight_recorder_current_trace(struct axiom_active_trace *out);

/// Copies the GNU build-id of the loaded module that contains `address` into `out` (at most
/// `capacity` bytes); returns its length, or 0 when the module has none or is not found.
/// Not async-signal-safe (it takes the loader's lock).
size_t axiom_flight_recorder_build_id(const void *address, uint8_t *out, size_t capacity);

#endif
