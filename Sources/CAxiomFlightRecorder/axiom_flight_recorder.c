// The recent errors are kept in AXIOM_RECENT_ERROR_SHARDS rings, one per group of threads: a
// thread is given a shard the first time it records (round robin) and always writes there, so
// threads on different cores write different cache lines and no counter is shared between them
// (one global ticket was the one write every decided error in the process made to the same line).
//
// Each shard is a set of seqlocked slots. A writer takes the shard's next ticket (fetch_add),
// claims the slot ticket % capacity by moving its sequence from an even value to an odd one (a
// compare-exchange: a slot still being written by a writer one lap behind is not waited for; the
// newer event is dropped), writes, and publishes the even value 2 * (ticket + 1). A reader (the
// crash handler) accepts a slot only if its sequence is the one the ticket it expects would
// publish, before and after copying. The reader merges the shards newest first by the entry's
// time, then by shard: a thread's own errors keep their order (one shard, one ticket sequence);
// errors of different threads within one tick of the coarse clock (a few milliseconds) are
// ordered by shard, not by the instant they happened.
#define _GNU_SOURCE
#include "axiom_flight_recorder.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CACHE_LINE 64

struct slot {
    _Atomic uint64_t sequence;
    struct axiom_recent_error error;
} __attribute__((aligned(CACHE_LINE)));

struct shard {
    // Alone on its line: the shard's writers touch it on every record, nobody else does.
    _Alignas(CACHE_LINE) _Atomic uint64_t next_ticket;
    struct slot ring[AXIOM_RECENT_ERROR_CAPACITY];
};

static struct shard shards[AXIOM_RECENT_ERROR_SHARDS];
static _Atomic uint32_t next_shard;
// The calling thread's shard + 1 (0: not given one yet). Initial-exec: one load from the thread
// pointer, no call.
static __thread uint32_t thread_shard __attribute__((tls_model("initial-exec")));

static inline struct shard *current_shard(void) {
    uint32_t shard = thread_shard;
    if (__builtin_expect(shard == 0, 0)) {
        shard = atomic_fetch_add_explicit(&next_shard, 1, memory_order_relaxed) % AXIOM_RECENT_ERROR_SHARDS + 1;
        thread_shard = shard;
    }
    return &shards[shard - 1];
}

uint32_t axiom_flight_recorder_thread_shard(void) { return (uint32_t)(current_shard() - shards); }

struct plugin_list {
    size_t length;
    uint8_t bytes[];
};
static _Atomic(struct plugin_list *) plugins;

static uint8_t copy_bounded(char *to, size_t capacity, const uint8_t *from, size_t length) {
    size_t n = length < capacity ? length : capacity;
    if (n) memcpy(to, from, n);
    return (uint8_t)n;
}

void axiom_flight_recorder_record_error(const uint8_t *code, size_t code_length, const uint8_t *layer,
                                        size_t layer_length, const uint8_t *operation, size_t operation_length,
                                        uint32_t attempt, uint8_t resolution) {
    struct shard *shard = current_shard();
    uint64_t ticket = atomic_fetch_add_explicit(&shard->next_ticket, 1, memory_order_relaxed);
    struct slot *slot = &shard->ring[ticket % AXIOM_RECENT_ERROR_CAPACITY];
    uint64_t sequence = atomic_load_explicit(&slot->sequence, memory_order_relaxed);
    // Acquire: the claim reads the previous writer's release of this slot, so its writes of the
    // slot happen before ours.
    if ((sequence & 1) ||
        !atomic_compare_exchange_strong_explicit(&slot->sequence, &sequence, 2 * ticket + 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return;
    atomic_thread_fence(memory_order_release);

    struct axiom_recent_error *error = &slot->error;
    // The coarse clock (the kernel's last tick, a few milliseconds old at most) costs a third of the
    // precise one; the ring's order, not the clock, says which error came first.
    struct timespec now = {0, 0};
    clock_gettime(CLOCK_REALTIME_COARSE, &now);
    error->seconds = now.tv_sec;
    error->nanoseconds = now.tv_nsec;
    error->attempt = attempt;
    error->resolution = resolution;
    error->code_length = copy_bounded(error->code, sizeof(error->code), code, code_length);
    error->layer_length = copy_bounded(error->layer, sizeof(error->layer), layer, layer_length);
    error->operation_length = copy_bounded(error->operation, sizeof(error->operation), operation, operation_length);

    atomic_store_explicit(&slot->sequence, 2 * ticket + 2, memory_order_release);
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
    const volatile uint8_t *from = (const volatile uint8_t *)&slot->error;
    uint8_t *to = (uint8_t *)out;
    for (size_t i = 0; i < length; i++) to[i] = from[i];
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&slot->sequence, memory_order_relaxed) == expected;
}

// When an entry was recorded: its first two fields.
struct stamp {
    int64_t seconds;
    int64_t nanoseconds;
};
_Static_assert(offsetof(struct axiom_recent_error, seconds) == 0 && offsetof(struct axiom_recent_error, nanoseconds) == 8,
               "an entry starts with its time");

// A k-way merge, newest first, with one cursor and the time of one candidate per shard: no
// allocation, no lock, about a kilobyte of stack (the crash handler runs on its alternate stack).
// The result is written from the end of `out` backwards, then moved to its start, so that it
// reads oldest first. An entry overwritten between the look at its time and its copy is left out.
NO_SANITIZE_THREAD
size_t axiom_flight_recorder_copy_errors(struct axiom_recent_error *out, size_t capacity) {
    uint64_t cursor[AXIOM_RECENT_ERROR_SHARDS];  // the candidate's ticket, or the next one to look at + 1
    uint64_t first[AXIOM_RECENT_ERROR_SHARDS];   // the oldest ticket the shard may still hold
    struct stamp stamp[AXIOM_RECENT_ERROR_SHARDS];
    uint8_t has_candidate[AXIOM_RECENT_ERROR_SHARDS];
    for (size_t s = 0; s < AXIOM_RECENT_ERROR_SHARDS; s++) {
        uint64_t end = atomic_load_explicit(&shards[s].next_ticket, memory_order_acquire);
        first[s] = end > AXIOM_RECENT_ERROR_CAPACITY ? end - AXIOM_RECENT_ERROR_CAPACITY : 0;
        cursor[s] = end;
        has_candidate[s] = 0;
    }
    size_t count = 0;
    while (count < capacity) {
        // Each shard's candidate is its newest entry not taken yet, skipping slots being written.
        int best = -1;
        for (size_t s = 0; s < AXIOM_RECENT_ERROR_SHARDS; s++) {
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
        if (copy_slot(&shards[best], cursor[best], &out[capacity - 1 - count], sizeof(struct axiom_recent_error)))
            count++;
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
    for (size_t s = 0; s < AXIOM_RECENT_ERROR_SHARDS; s++)
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
