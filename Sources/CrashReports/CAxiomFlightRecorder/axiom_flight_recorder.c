// The recent errors are kept in AXIOM_RECENT_ERROR_SHARDS rings that threads own, one thread each, and one
// overflow ring that the threads beyond them share:
//
//   record_error ── owns shard s? ── yes ──▶ shards[s]: one writer, no read-modify-write
//                       │ no (its first record; or on the overflow ring, every OVERFLOW_RETRY records)
//                       ▼
//                   claim a free shard: owned[s] 0 → 1, acquire ── yes ──▶ shards[s]
//                       │ none free
//                       ▼
//                   shards[OVERFLOW]: fetch_add + compare-exchange, many writers
//   thread exit  ── owned[s] = 0, release (the key's destructor)
//   crash handler ── merges every ring, newest first, by time then by ring (seqlock reads)
//
// Ownership. A thread claims a shard the first time it records (a compare-exchange of the shard's flag from 0 to 1,
// with acquire; the scan starts round robin) and keeps it until it exits, when a pthread key's destructor gives it
// back with a release store. The next owner's claim reads that store, so everything the previous owner wrote (its
// tickets and slots) happens before the new owner's writes: a shard has one writer at a time. That writer needs no
// read-modify-write, the classic single-writer seqlock: it reads the ticket and stores ticket + 1 (both relaxed),
// stores the slot's odd sequence 2 * ticket + 1, a release fence, the plain copies, then the even 2 * ticket + 2
// with release. Whoever wrote the slot before is the owner itself or an earlier owner it synchronized with, so no
// writer one lap behind can still be in it. A thread that owns no shard (more live recording threads than shards)
// writes the overflow ring with the many-writer protocol: it takes a ticket with fetch_add and claims the slot by
// moving its sequence from even to odd with a compare-exchange (a slot still being written by a writer one lap
// behind is not waited for: the newer event is dropped). The overflow ring is a ring of its own and not one of the
// owned ones because an owner's plain ticket increment would lose a concurrent fetch_add, and two writers would
// then share a slot. A thread on it looks for a free shard again every OVERFLOW_RETRY records, so a thread that
// arrived during a burst of threads does not stay on the shared ring once the burst is over.
//
// Names. A slot keeps the code's and the layer's names as indexes into a table of names (axiom_flight_recorder_name),
// which pipelines look up once per code and per layer; the crash handler copies the names in as it reads the slot.
//
// Reading. The crash handler accepts a slot only if its sequence is the one the ticket it expects would publish,
// before and after copying (the writer's release fence orders the odd sequence before the copies, so a copy that
// overlaps a write sees a changed sequence). It merges the rings newest first by the entry's time, then by ring:
// a thread's own errors keep their order (one ring, one ticket sequence; the overflow ring is the last, so on a
// tie its entries count as the older ones, the order of a thread that moved from it to a shard of its own);
// errors of different threads within one tick of the coarse clock (a few milliseconds) are ordered by ring, not
// by the instant they happened.
#define _GNU_SOURCE
#include "axiom_flight_recorder.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CACHE_LINE 64
// The shared ring's index, after the owned ones.
#define OVERFLOW AXIOM_RECENT_ERROR_SHARDS
#define RING_COUNT (AXIOM_RECENT_ERROR_SHARDS + 1)
// How many records a thread writes on the overflow ring between two looks for a free shard.
#define OVERFLOW_RETRY 64

// One decided error as a slot keeps it: the names as indexes into the table of names, which the crash handler expands
// into a struct axiom_recent_error. Starts with its time, laid out as a struct timespec (see stamp).
struct record {
    int64_t seconds;
    int64_t nanoseconds;
    uint32_t attempt;
    uint32_t code;   // an index of the table of names
    uint32_t layer;  // the same
    // (an index the table does not hold, AXIOM_RECORDED_NAME_NONE or 0, expands to an empty name)
    uint8_t resolution;
    uint8_t operation_length;
    char operation[AXIOM_RECENT_ERROR_OPERATION_LENGTH];
};

struct slot {
    _Atomic uint64_t sequence;
    struct record record;
} __attribute__((aligned(CACHE_LINE)));
// Two cache lines a slot (three when the names were copied into it).
_Static_assert(sizeof(struct slot) == 2 * CACHE_LINE, "a slot is two cache lines");

struct shard {
    // Alone on its line: the shard's writer touches it on every record, the crash handler when it reads.
    _Alignas(CACHE_LINE) _Atomic uint64_t next_ticket;
    struct slot ring[AXIOM_RECENT_ERROR_CAPACITY];
};

static struct shard shards[RING_COUNT];
// 1 while a thread owns the shard. On a line of their own: claims and give-backs write them, records never do.
static _Alignas(CACHE_LINE) _Atomic uint32_t owned[AXIOM_RECENT_ERROR_SHARDS];
static _Atomic uint32_t next_shard;

// The calling thread's ring + 1: 1 to AXIOM_RECENT_ERROR_SHARDS for a shard it owns, ON_OVERFLOW while it writes
// the overflow ring and looks for a shard now and then, STAYS_ON_OVERFLOW once it gave its shard back (it is
// exiting) or could not arrange to give one back; 0 before its first record. Initial-exec: one load from the thread
// pointer, no call.
enum { ON_OVERFLOW = OVERFLOW + 1, STAYS_ON_OVERFLOW = OVERFLOW + 2 };
// Extern so that the header's inline axiom_flight_recorder_thread_shard can read it where it is called.
__thread uint32_t axiom_flight_recorder_thread_ring __attribute__((tls_model("initial-exec")));
#define thread_shard axiom_flight_recorder_thread_ring
// Records left on the overflow ring before the thread looks for a free shard again.
static __thread uint32_t overflow_countdown __attribute__((tls_model("initial-exec")));

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t owner_key;
static int owner_key_made;

// Runs as the owner exits (its key's value is the shard + 1). A record later in the exit (another key's
// destructor) goes to the overflow ring: the shard may already be someone else's.
static void give_back(void *value) {
    uint32_t shard = (uint32_t)(uintptr_t)value - 1;
    thread_shard = STAYS_ON_OVERFLOW;
    atomic_store_explicit(&owned[shard], 0, memory_order_release);
}

// A child of fork() has one thread, the one that forked: every other owner is gone, so their shards are free.
static void give_back_in_child(void) {
    for (uint32_t s = 0; s < AXIOM_RECENT_ERROR_SHARDS; s++)
        if (thread_shard != s + 1) atomic_store_explicit(&owned[s], 0, memory_order_relaxed);
}

static void make_owner_key(void) {
    owner_key_made = pthread_key_create(&owner_key, give_back) == 0;
    if (owner_key_made) pthread_atfork(NULL, NULL, give_back_in_child);
}

// Makes the calling thread the owner of a free shard, if there is one; else puts it on the overflow ring.
static void claim_shard(void) {
    pthread_once(&key_once, make_owner_key);
    if (!owner_key_made) {
        // A shard that could not be given back at exit would be lost for good.
        thread_shard = STAYS_ON_OVERFLOW;
        return;
    }
    uint32_t start = atomic_fetch_add_explicit(&next_shard, 1, memory_order_relaxed);
    for (uint32_t i = 0; i < AXIOM_RECENT_ERROR_SHARDS; i++) {
        uint32_t s = (start + i) % AXIOM_RECENT_ERROR_SHARDS;
        uint32_t expected = 0;
        // Acquire: the previous owner's writes to the shard happen before ours.
        if (atomic_load_explicit(&owned[s], memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong_explicit(&owned[s], &expected, 1, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;
        // Once per thread; allocates (glibc) only when the key is not among the process's first 32.
        if (pthread_setspecific(owner_key, (void *)(uintptr_t)(s + 1)) != 0) {
            atomic_store_explicit(&owned[s], 0, memory_order_release);
            break;
        }
        thread_shard = s + 1;
        return;
    }
    thread_shard = ON_OVERFLOW;
    overflow_countdown = OVERFLOW_RETRY;
}

int axiom_flight_recorder_thread_owns_shard(void) {
    return axiom_flight_recorder_thread_shard() < AXIOM_RECENT_ERROR_SHARDS;
}

// The table of names. Entries live in chunks this file maps for itself, never freed or moved, each published (the
// count stored with release) before its index is handed out, so the crash handler reads one with plain loads after
// an acquire of the count and of its chunk. Writers take `names_lock`, and find a name already kept through a hash
// table of indexes (heap memory that only they touch).
struct name_entry {
    uint8_t length;
    uint8_t bytes[AXIOM_RECENT_ERROR_CODE_LENGTH];
};
#define NAME_CHUNK_SHIFT 12
#define NAME_CHUNK_ENTRIES (1u << NAME_CHUNK_SHIFT)
#define NAME_CHUNKS (AXIOM_RECORDED_NAME_CAPACITY / NAME_CHUNK_ENTRIES)
static _Atomic(struct name_entry *) name_chunks[NAME_CHUNKS];
static _Atomic uint32_t name_count;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *name_index;  // open addressing: an index + 1 of the table per bucket, 0 when empty
static size_t name_index_capacity;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void lock_names(void) { pthread_mutex_lock(&names_lock); }
static void unlock_names(void) { pthread_mutex_unlock(&names_lock); }
// A fork while another thread holds the lock would leave the child's copy locked for good.
static void prepare_names(void) { pthread_atfork(lock_names, unlock_names, unlock_names); }

static uint64_t name_hash(const uint8_t *bytes, size_t length) {
    uint64_t hash = 0xcbf29ce484222325u;  // FNV-1a
    for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 0x100000001b3u;
    return hash;
}

// The entry of `index` (from 1), or NULL when there is none. Async-signal-safe.
static const struct name_entry *name_at(uint32_t index) {
    if (index == 0 || index > atomic_load_explicit(&name_count, memory_order_acquire)) return NULL;
    struct name_entry *chunk = atomic_load_explicit(&name_chunks[(index - 1) >> NAME_CHUNK_SHIFT], memory_order_acquire);
    return chunk ? &chunk[(index - 1) & (NAME_CHUNK_ENTRIES - 1)] : NULL;
}

// Puts `index` in the hash table's bucket for `hash` (the table has a free bucket). Under the lock.
static void index_name(uint32_t index, uint64_t hash) {
    size_t mask = name_index_capacity - 1;
    size_t bucket = (size_t)hash & mask;
    while (name_index[bucket] != 0) bucket = (bucket + 1) & mask;
    name_index[bucket] = index;
}

// Doubles the hash table (or makes its first), rehashing the names kept. Under the lock; 0, or -1 when out of memory.
static int grow_name_index(void) {
    size_t capacity = name_index_capacity ? name_index_capacity * 2 : 1024;
    uint32_t *table = calloc(capacity, sizeof(uint32_t));
    if (!table) return -1;
    uint32_t *old = name_index;
    name_index = table;
    name_index_capacity = capacity;
    uint32_t count = atomic_load_explicit(&name_count, memory_order_relaxed);
    for (uint32_t index = 1; index <= count; index++) {
        const struct name_entry *entry = name_at(index);
        index_name(index, name_hash(entry->bytes, entry->length));
    }
    free(old);
    return 0;
}

uint32_t axiom_flight_recorder_name(const uint8_t *bytes, size_t length) {
    if (length > AXIOM_RECENT_ERROR_CODE_LENGTH) length = AXIOM_RECENT_ERROR_CODE_LENGTH;
    if (length && !bytes) return AXIOM_RECORDED_NAME_NONE;
    pthread_once(&names_once, prepare_names);
    uint64_t hash = name_hash(bytes, length);
    uint32_t found = 0;
    lock_names();
    uint32_t count = atomic_load_explicit(&name_count, memory_order_relaxed);
    if (name_index_capacity) {
        size_t mask = name_index_capacity - 1;
        for (size_t bucket = (size_t)hash & mask; name_index[bucket] != 0; bucket = (bucket + 1) & mask) {
            const struct name_entry *entry = name_at(name_index[bucket]);
            if (entry->length == length && (length == 0 || memcmp(entry->bytes, bytes, length) == 0)) {
                found = name_index[bucket];
                break;
            }
        }
    }
    // A new name: its entry written, then published; the hash table kept at most half full.
    if (!found && count < AXIOM_RECORDED_NAME_CAPACITY &&
        ((size_t)count + 1 <= name_index_capacity / 2 || grow_name_index() == 0)) {
        uint32_t chunk_index = count >> NAME_CHUNK_SHIFT;
        struct name_entry *chunk = atomic_load_explicit(&name_chunks[chunk_index], memory_order_relaxed);
        if (!chunk) {
            void *mapped = mmap(NULL, NAME_CHUNK_ENTRIES * sizeof(struct name_entry), PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (mapped != MAP_FAILED) {
                chunk = mapped;
                atomic_store_explicit(&name_chunks[chunk_index], chunk, memory_order_release);
            }
        }
        if (chunk) {
            struct name_entry *entry = &chunk[count & (NAME_CHUNK_ENTRIES - 1)];
            entry->length = (uint8_t)length;
            if (length) memcpy(entry->bytes, bytes, length);
            found = count + 1;
            atomic_store_explicit(&name_count, found, memory_order_release);
            index_name(found, hash);
        }
    }
    unlock_names();
    return found ? found : AXIOM_RECORDED_NAME_NONE;
}

struct plugin_list {
    size_t length;
    uint8_t bytes[];
};
static _Atomic(struct plugin_list *) plugins;

// Copies the operation's name (at most `capacity` bytes), short as a rule: fixed-size moves that overlap instead of a
// call.
__attribute__((always_inline)) static inline uint8_t copy_short(char *to, size_t capacity, const uint8_t *from,
                                                                size_t length) {
    size_t n = length < capacity ? length : capacity;
    if (n >= 8) {
        uint64_t word;
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&word, from + i, 8);
            memcpy(to + i, &word, 8);
        }
        memcpy(&word, from + n - 8, 8);
        memcpy(to + n - 8, &word, 8);
    } else if (n >= 4) {
        uint32_t head, tail;
        memcpy(&head, from, 4);
        memcpy(&tail, from + n - 4, 4);
        memcpy(to, &head, 4);
        memcpy(to + n - 4, &tail, 4);
    } else {
        for (size_t i = 0; i < n; i++) to[i] = (char)from[i];
    }
    return (uint8_t)n;
}

// The record's time, written last, once the other fields are: the arguments are spent by then, so only the slot and
// its sequence live across the clock's call (written first, the call kept all six arguments in saved registers). The
// coarse clock (the kernel's last tick, a few milliseconds old at most) costs a third of the precise one; the ring's
// order, not the clock, says which error came first. The clock writes straight into the slot, whose first two fields
// are laid out as a struct timespec: copying a timespec from the stack would load 16 bytes that the clock stored as
// two 8-byte halves, a load the processor cannot forward from those stores, and it waits for them (that wait was
// most of a record's time).
_Static_assert(sizeof(struct timespec) == 16 && offsetof(struct record, seconds) == 0 &&
                   offsetof(struct record, nanoseconds) == 8 && sizeof(time_t) == sizeof(int64_t),
               "the slot's time fields are a struct timespec");
typedef int (*clock_function)(clockid_t, struct timespec *);
static int first_clock(clockid_t clock, struct timespec *now);
// The kernel's clock_gettime in the vDSO, called directly: glibc's clock_gettime calls the same function through a
// wrapper of its own, which costs about a third of the coarse clock's time. Found at the first record; glibc's
// where the process has no vDSO (under valgrind, say).
static _Atomic(clock_function) read_clock = first_clock;

static int first_clock(clockid_t clock, struct timespec *now) {
    clock_function found = clock_gettime;
    void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (vdso) {
        // Its name on x86-64, then on aarch64.
        void *symbol = dlsym(vdso, "__vdso_clock_gettime");
        if (!symbol) symbol = dlsym(vdso, "__kernel_clock_gettime");
        if (symbol) found = (clock_function)symbol;
        dlclose(vdso);
    }
    atomic_store_explicit(&read_clock, found, memory_order_relaxed);
    return found(clock, now);
}

__attribute__((always_inline)) static inline void stamp(struct record *record) {
    struct timespec *now = (struct timespec *)(void *)record;
    if (atomic_load_explicit(&read_clock, memory_order_relaxed)(CLOCK_REALTIME_COARSE, now) != 0) {
        now->tv_sec = 0;
        now->tv_nsec = 0;
    }
}

static struct slot *begin_unowned(uint64_t *publish);

// Takes the next slot of the calling thread's ring and marks it being written (odd sequence); returns it, with
// the sequence that end_record publishes in `publish`, or NULL when the event is dropped.
__attribute__((always_inline)) static inline struct slot *begin_record(uint64_t *publish) {
    uint32_t index = thread_shard - 1;
    if (__builtin_expect(index >= AXIOM_RECENT_ERROR_SHARDS, 0)) return begin_unowned(publish);
    // The only writer of this shard: plain loads and stores of the ticket and the sequence.
    struct shard *shard = &shards[index];
    uint64_t ticket = atomic_load_explicit(&shard->next_ticket, memory_order_relaxed);
    atomic_store_explicit(&shard->next_ticket, ticket + 1, memory_order_relaxed);
    struct slot *slot = &shard->ring[ticket % AXIOM_RECENT_ERROR_CAPACITY];
    atomic_store_explicit(&slot->sequence, 2 * ticket + 1, memory_order_relaxed);
    // A reader that sees any of the copies that follow then sees the odd sequence (or a later one) after its copy.
    atomic_thread_fence(memory_order_release);
    *publish = 2 * ticket + 2;
    return slot;
}

// Publishes a slot begin_record gave.
__attribute__((always_inline)) static inline void end_record(struct slot *slot, uint64_t publish) {
    atomic_store_explicit(&slot->sequence, publish, memory_order_release);
}

// The overflow ring's writers, and a thread's first record: many writers, so atomic read-modify-writes.
__attribute__((noinline)) static struct slot *begin_unowned(uint64_t *publish) {
    if (thread_shard == 0 || (thread_shard == ON_OVERFLOW && --overflow_countdown == 0)) {
        claim_shard();
        if (axiom_flight_recorder_thread_owns_shard()) return begin_record(publish);
    }
    struct shard *shard = &shards[OVERFLOW];
    uint64_t ticket = atomic_fetch_add_explicit(&shard->next_ticket, 1, memory_order_relaxed);
    struct slot *slot = &shard->ring[ticket % AXIOM_RECENT_ERROR_CAPACITY];
    uint64_t sequence = atomic_load_explicit(&slot->sequence, memory_order_relaxed);
    // Acquire: the claim reads the previous writer's release of this slot, so its writes of the
    // slot happen before ours.
    if ((sequence & 1) ||
        !atomic_compare_exchange_strong_explicit(&slot->sequence, &sequence, 2 * ticket + 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return NULL;
    atomic_thread_fence(memory_order_release);
    *publish = 2 * ticket + 2;
    return slot;
}

// Fills a slot that begin_record gave and publishes it.
__attribute__((always_inline)) static inline void write_record(struct slot *slot, uint64_t publish, uint32_t code,
                                                               uint32_t layer, const uint8_t *operation,
                                                               size_t operation_length, uint32_t attempt,
                                                               uint8_t resolution) {
    struct record *record = &slot->record;
    record->attempt = attempt;
    record->resolution = resolution;
    record->code = code;
    record->layer = layer;
    record->operation_length = copy_short(record->operation, sizeof(record->operation), operation, operation_length);
    stamp(record);
    end_record(slot, publish);
}

// A record of a thread that owns no shard (yet): a call of its own, so that the usual path keeps no argument alive
// across a call but the clock's.
__attribute__((noinline)) static void record_unowned(uint32_t code, uint32_t layer, const uint8_t *operation,
                                                     size_t operation_length, uint32_t attempt, uint8_t resolution) {
    uint64_t publish;
    struct slot *slot = begin_unowned(&publish);
    if (slot) write_record(slot, publish, code, layer, operation, operation_length, attempt, resolution);
}

void axiom_flight_recorder_record(uint32_t code, uint32_t layer, const uint8_t *operation, size_t operation_length,
                                  uint32_t attempt, uint8_t resolution) {
    if (__builtin_expect(thread_shard - 1 >= AXIOM_RECENT_ERROR_SHARDS, 0)) {
        record_unowned(code, layer, operation, operation_length, attempt, resolution);
        return;
    }
    uint64_t publish;
    struct slot *slot = begin_record(&publish);
    write_record(slot, publish, code, layer, operation, operation_length, attempt, resolution);
}

void axiom_flight_recorder_record_error(const uint8_t *code, size_t code_length, const uint8_t *layer,
                                        size_t layer_length, const uint8_t *operation, size_t operation_length,
                                        uint32_t attempt, uint8_t resolution) {
    axiom_flight_recorder_record(axiom_flight_recorder_name(code, code_length),
                                 axiom_flight_recorder_name(layer, layer_length), operation, operation_length, attempt,
                                 resolution);
}

// The copies may overlap a writer: that is the seqlock's point, and the sequence check after
// each copy throws such a slot away. ThreadSanitizer cannot know that, so it does not watch
// these readers.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NO_SANITIZE_THREAD __attribute__((no_sanitize("thread")))
#endif
#endif
#ifndef NO_SANITIZE_THREAD
#define NO_SANITIZE_THREAD
#endif

// Copies the slot of `ticket` in `shard` into `out` if it holds that ticket's entry, whole;
// `length` bytes of it (the whole entry, or only its leading time fields). Byte by byte through a
// volatile pointer: no libc call, and the copy is not elided.
NO_SANITIZE_THREAD
static int copy_slot(const struct shard *shard, uint64_t ticket, void *out, size_t length) {
    const struct slot *slot = &shard->ring[ticket % AXIOM_RECENT_ERROR_CAPACITY];
    uint64_t expected = 2 * ticket + 2;
    if (atomic_load_explicit(&slot->sequence, memory_order_acquire) != expected) return 0;
    const volatile uint8_t *from = (const volatile uint8_t *)&slot->record;
    uint8_t *to = (uint8_t *)out;
    for (size_t i = 0; i < length; i++) to[i] = from[i];
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&slot->sequence, memory_order_relaxed) == expected;
}

// Copies the first `length` bytes of name `index` into `to` (at most `capacity`); returns how many. Async-signal-safe.
static uint8_t copy_name(char *to, size_t capacity, uint32_t index) {
    const struct name_entry *entry = name_at(index);
    if (!entry) return 0;
    size_t length = entry->length < capacity ? entry->length : capacity;
    for (size_t i = 0; i < length; i++) to[i] = (char)entry->bytes[i];
    return (uint8_t)length;
}

// A slot's record as a report keeps it: the names copied in from the table, every byte past a field's length zero.
// Async-signal-safe: loads and stores (which the compiler may turn into memset and memcpy, both async-signal-safe).
static void expand(const struct record *record, struct axiom_recent_error *out) {
    uint8_t *bytes = (uint8_t *)out;
    for (size_t i = 0; i < sizeof(*out); i++) bytes[i] = 0;
    out->seconds = record->seconds;
    out->nanoseconds = record->nanoseconds;
    out->attempt = record->attempt;
    out->resolution = record->resolution;
    out->code_length = copy_name(out->code, sizeof(out->code), record->code);
    out->layer_length = copy_name(out->layer, sizeof(out->layer), record->layer);
    size_t length = record->operation_length < sizeof(out->operation) ? record->operation_length : sizeof(out->operation);
    for (size_t i = 0; i < length; i++) out->operation[i] = record->operation[i];
    out->operation_length = (uint8_t)length;
}

// When an entry was recorded: its first two fields.
struct stamp {
    int64_t seconds;
    int64_t nanoseconds;
};
_Static_assert(offsetof(struct record, seconds) == 0 && offsetof(struct record, nanoseconds) == 8,
               "a record starts with its time");

// A k-way merge, newest first, with one cursor and the time of one candidate per ring: no
// allocation, no lock, about a kilobyte of stack (the crash handler runs on its alternate stack).
// The result is written from the end of `out` backwards, then moved to its start, so that it
// reads oldest first. An entry overwritten between the look at its time and its copy is left out.
NO_SANITIZE_THREAD
size_t axiom_flight_recorder_copy_errors(struct axiom_recent_error *out, size_t capacity) {
    uint64_t cursor[RING_COUNT];  // the candidate's ticket, or the next one to look at + 1
    uint64_t first[RING_COUNT];   // the oldest ticket the ring may still hold
    struct stamp stamp[RING_COUNT];
    uint8_t has_candidate[RING_COUNT];
    for (size_t s = 0; s < RING_COUNT; s++) {
        uint64_t end = atomic_load_explicit(&shards[s].next_ticket, memory_order_acquire);
        first[s] = end > AXIOM_RECENT_ERROR_CAPACITY ? end - AXIOM_RECENT_ERROR_CAPACITY : 0;
        cursor[s] = end;
        has_candidate[s] = 0;
    }
    size_t count = 0;
    while (count < capacity) {
        // Each ring's candidate is its newest entry not taken yet, skipping slots being written. On a tie the
        // lower ring is taken first, as the newer.
        int best = -1;
        for (size_t s = 0; s < RING_COUNT; s++) {
            while (!has_candidate[s] && cursor[s] > first[s]) {
                cursor[s]--;
                has_candidate[s] = (uint8_t)copy_slot(&shards[s], cursor[s], &stamp[s], sizeof(struct stamp));
            }
            if (!has_candidate[s]) continue;
            if (best < 0 || stamp[s].seconds > stamp[best].seconds ||
                (stamp[s].seconds == stamp[best].seconds && stamp[s].nanoseconds > stamp[best].nanoseconds))
                best = (int)s;
        }
        if (best < 0) break;
        has_candidate[best] = 0;
        struct record record;
        if (copy_slot(&shards[best], cursor[best], &record, sizeof(record)))
            expand(&record, &out[capacity - 1 - count++]);
    }
    if (count < capacity) {
        uint8_t *to = (uint8_t *)out;
        const uint8_t *from = (const uint8_t *)(out + (capacity - count));
        for (size_t i = 0; i < count * sizeof(struct axiom_recent_error); i++) to[i] = from[i];
    }
    return count;
}

uint64_t axiom_flight_recorder_error_count(void) {
    uint64_t count = 0;
    for (size_t s = 0; s < RING_COUNT; s++)
        count += atomic_load_explicit(&shards[s].next_ticket, memory_order_relaxed);
    return count;
}

int axiom_flight_recorder_set_plugins(const uint8_t *bytes, size_t length) {
    struct plugin_list *list = malloc(sizeof(*list) + length);
    if (!list) return -1;
    list->length = length;
    if (length) memcpy(list->bytes, bytes, length);
    // The previous list is leaked on purpose: a crash handler on another thread may be
    // reading it, and plugin lists change a handful of times in a process's life.
    atomic_store_explicit(&plugins, list, memory_order_release);
    return 0;
}

const uint8_t *axiom_flight_recorder_plugins(size_t *length) {
    struct plugin_list *list = atomic_load_explicit(&plugins, memory_order_acquire);
    *length = list ? list->length : 0;
    return list ? list->bytes : NULL;
}

// Announced traces: a slot is free while its task is 0. A writer claims one with a compare-exchange from 0 to 1
// (no task is at address 1), writes the ids and its stamp, then publishes the task with release order. A reader
// (the crash handler) accepts a slot whose task is the current one before and after copying it, and among those
// the one with the highest stamp: the innermost announcement of a task that nests spans.
struct trace_slot {
    _Atomic uintptr_t task;
    _Atomic uint64_t stamp;
    struct axiom_active_trace trace;
};
static struct trace_slot trace_slots[AXIOM_ACTIVE_TRACE_CAPACITY];
static _Atomic uint64_t next_stamp = 1;

// The Swift runtime's current task (an `AsyncTask *`), or NULL on a thread that runs none. Weak, so a C program
// without the Swift runtime links and simply has no tasks. It takes no arguments and returns one pointer, which
// the Swift and C calling conventions pass alike.
extern void *swift_task_getCurrent(void) __attribute__((weak));

static uintptr_t current_task(void) {
    return swift_task_getCurrent ? (uintptr_t)swift_task_getCurrent() : 0;
}

int axiom_flight_recorder_enter_trace(const struct axiom_active_trace *trace) {
    uintptr_t task = current_task();
    if (task <= 1 || !trace) return -1;
    // Start where the task's address points, so concurrent tasks rarely contend for the same slots.
    size_t start = (task >> 4) % AXIOM_ACTIVE_TRACE_CAPACITY;
    for (size_t i = 0; i < AXIOM_ACTIVE_TRACE_CAPACITY; i++) {
        size_t index = (start + i) % AXIOM_ACTIVE_TRACE_CAPACITY;
        struct trace_slot *slot = &trace_slots[index];
        uintptr_t expected = 0;
        if (atomic_load_explicit(&slot->task, memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong_explicit(&slot->task, &expected, 1, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;
        slot->trace = *trace;
        atomic_store_explicit(&slot->stamp, atomic_fetch_add_explicit(&next_stamp, 1, memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&slot->task, task, memory_order_release);
        return (int)index;
    }
    return -1;
}

void axiom_flight_recorder_leave_trace(int slot) {
    if (slot < 0 || slot >= AXIOM_ACTIVE_TRACE_CAPACITY) return;
    atomic_store_explicit(&trace_slots[slot].task, 0, memory_order_release);
}

int axiom_flight_recorder_current_trace(struct axiom_active_trace *out) {
    uintptr_t task = current_task();
    if (task <= 1 || !out) return 0;
    uint64_t best = 0;
    for (size_t i = 0; i < AXIOM_ACTIVE_TRACE_CAPACITY; i++) {
        struct trace_slot *slot = &trace_slots[i];
        if (atomic_load_explicit(&slot->task, memory_order_acquire) != task) continue;
        struct axiom_active_trace copy = slot->trace;
        uint64_t stamp = atomic_load_explicit(&slot->stamp, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&slot->task, memory_order_relaxed) != task || stamp <= best) continue;
        best = stamp;
        *out = copy;
    }
    return best != 0;
}

struct build_id_search {
    uintptr_t base;
    uint8_t *out;
    size_t capacity;
    size_t length;
};

static int find_build_id_of(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct build_id_search *search = data;
    int matches = 0;
    for (int i = 0; i < info->dlpi_phnum && !matches; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && info->dlpi_addr + ph->p_vaddr <= search->base &&
            search->base < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
            matches = 1;
    }
    if (!matches) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
            size_t name_size = (note->n_namesz + 3u) & ~3u;
            size_t desc_size = (note->n_descsz + 3u) & ~3u;
            const uint8_t *name = p + sizeof(ElfW(Nhdr));
            if ((size_t)(end - name) < name_size || (size_t)(end - name - name_size) < desc_size) break;
            const uint8_t *desc = name + name_size;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                size_t n = note->n_descsz < search->capacity ? note->n_descsz : search->capacity;
                memcpy(search->out, desc, n);
                search->length = n;
                return 1;
            }
            p = desc + desc_size;
        }
    }
    return 1;
}

size_t axiom_flight_recorder_build_id(const void *address, uint8_t *out, size_t capacity) {
    struct build_id_search search = {(uintptr_t)address, out, capacity, 0};
    dl_iterate_phdr(find_build_id_of, &search);
    return search.length;
}
