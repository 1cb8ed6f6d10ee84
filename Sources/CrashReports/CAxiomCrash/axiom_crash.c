// Fatal-signal capture. Everything that can fail or allocate happens in
// axiom_crash_install; the handler only reads what install prepared and uses
// async-signal-safe calls (syscalls, libunwind's local unwinder).
//
//   install ──► alternate stack, report dir fd, /proc/self/task fd, work area (mmap),
//               module snapshot (fallback), fatal-message sources, libunwind warm-up,
//               sigaction ×6 (previous actions saved)
//   fault ────► handler: claim the owner flag ─► unwind from the signal context
//               ─► ask every other thread for its stack (SIGPROF each, one bounded wait)
//               ─► read the modules loaded now, the fatal message, the flight recorder
//               ─► write <name>.tmp ─► rename to <name> (or, when that fails, one line on
//               standard error naming the folder, the file and errno) ─► put previous actions back
//               ─► let the signal reach them (re-fault or re-send) ─► process dies
//
// Concurrency decision: the first thread that enters the handler owns it for the rest
// of the process's life and writes the only report. Another thread that crashes
// meanwhile blocks in the handler until the process dies (its crash would be a
// consequence, and two writers would race to kill the process with a half-written
// file). A fault inside the handler itself (same thread re-entering) puts the previous
// actions back and returns, so the fault recurs at the previous handler or the default
// action; a fault with the signal being handled is blocked, so the kernel applies the
// default action directly. Either way the process still dies.
#define _GNU_SOURCE
#include "axiom_crash.h"

#include "axiom_flight_recorder.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>  // renameat only; no stdio streams are used
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the raw report format is little-endian; this writer stores native integers"
#endif
// The architecture the report describes: its code, its registers and where the signal's
// context keeps the pc. libunwind takes the signal's ucontext_t as its context on both.
#if defined(__x86_64__)
#define REPORT_ARCHITECTURE AXIOM_CRASH_ARCH_X86_64
#define REGISTER_COUNT AXIOM_CRASH_X86_64_REGISTER_COUNT
#define CONTEXT_PC(uc) ((uint64_t)(uc)->uc_mcontext.gregs[REG_RIP])
#elif defined(__aarch64__)
#define REPORT_ARCHITECTURE AXIOM_CRASH_ARCH_AARCH64
#define REGISTER_COUNT AXIOM_CRASH_AARCH64_REGISTER_COUNT
#define CONTEXT_PC(uc) ((uint64_t)(uc)->uc_mcontext.pc)
#else
#error "register capture is written for x86_64 and aarch64"
#endif

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define FATAL_SIGNAL_COUNT ((int)(sizeof(fatal_signals) / sizeof(fatal_signals[0])))

static struct sigaction previous_actions[FATAL_SIGNAL_COUNT];
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int installed;
static int report_directory_fd = -1;
/// The directory's path as install was given it, for the line on standard error when a report cannot be written.
static char report_directory_path[1024];
/// Makes each writability probe's name unique within the process (see warm_up).
static atomic_uint probe_counter;
/// Thread id of the thread writing the report; 0 while no thread is in the handler.
static atomic_int handler_owner;
static atomic_uint report_counter;

/// Module records, already encoded in the raw format, swapped whole on refresh.
struct module_snapshot {
    size_t length;
    uint32_t count;
    uint32_t truncated;
    uint8_t bytes[];
};
static _Atomic(struct module_snapshot *) current_modules;

// ---------------------------------------------------------------------------------
// Module snapshot (install time: may allocate)

struct snapshot_builder {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    uint32_t count;
    uint32_t truncated;
    int failed;
    /// Set in the handler: `bytes` is the preallocated work area, never grown.
    int fixed;
    const char *executable_path;
};

/// The main executable's path, read at install (the handler does not resolve paths).
static char executable_path[4096];

static void builder_append(struct snapshot_builder *b, const void *data, size_t length) {
    if (b->failed) return;
    if (b->length + length > b->capacity) {
        if (b->fixed) {
            b->failed = 1;
            return;
        }
        size_t capacity = b->capacity ? b->capacity * 2 : 8192;
        while (capacity < b->length + length) capacity *= 2;
        uint8_t *bytes = realloc(b->bytes, capacity);
        if (!bytes) {
            b->failed = 1;
            return;
        }
        b->bytes = bytes;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, data, length);
    b->length += length;
}

/// Finds the GNU build-id note in the module's PT_NOTE segments, in memory.
static size_t find_build_id(const struct dl_phdr_info *info, const uint8_t **out) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
            size_t name_size = (note->n_namesz + 3u) & ~3u;
            size_t desc_size = (note->n_descsz + 3u) & ~3u;
            const uint8_t *name = p + sizeof(ElfW(Nhdr));
            const uint8_t *desc = name + name_size;
            if (desc + desc_size > end) break;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                *out = desc;
                return note->n_descsz;
            }
            p = desc + desc_size;
        }
    }
    return 0;
}

static int snapshot_module(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct snapshot_builder *b = data;
    if (b->count >= AXIOM_CRASH_MAX_MODULES || b->failed) {
        b->truncated = 1;
        return 1;
    }
    uint64_t low = UINT64_MAX, end_of_text = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        if (ph->p_vaddr < low) low = ph->p_vaddr;
        if ((ph->p_flags & PF_X) && ph->p_vaddr + ph->p_memsz > end_of_text) end_of_text = ph->p_vaddr + ph->p_memsz;
    }
    if (low == UINT64_MAX) return 0;  // nothing mapped

    // The main executable comes first, with an empty name.
    const char *path = info->dlpi_name;
    if ((path == NULL || path[0] == '\0') && b->count == 0) path = b->executable_path;
    if (path == NULL) path = "";

    const uint8_t *build_id = NULL;
    size_t build_id_length = find_build_id(info, &build_id);
    size_t path_length = strlen(path);
    if (build_id_length > UINT16_MAX) build_id_length = 0;
    if (path_length > UINT16_MAX) path_length = UINT16_MAX;
    if (b->fixed && b->length + AXIOM_CRASH_MODULE_RECORD_FIXED_LENGTH + build_id_length + path_length > b->capacity) {
        // The work area is full: keep the records that fit, whole.
        b->truncated = 1;
        return 1;
    }

    uint64_t bias = info->dlpi_addr;
    uint64_t base = bias + low;
    uint64_t text_end = end_of_text ? bias + end_of_text : 0;
    uint16_t build_id_length16 = (uint16_t)build_id_length;
    uint16_t path_length16 = (uint16_t)path_length;
    builder_append(b, &bias, 8);
    builder_append(b, &base, 8);
    builder_append(b, &text_end, 8);
    builder_append(b, &build_id_length16, 2);
    builder_append(b, &path_length16, 2);
    builder_append(b, build_id, build_id_length);
    builder_append(b, path, path_length);
    b->count++;
    return 0;
}

static int take_module_snapshot(void) {
    struct snapshot_builder *b = calloc(1, sizeof(*b));
    if (!b) return -1;
    b->executable_path = executable_path;
    dl_iterate_phdr(snapshot_module, b);
    struct module_snapshot *snapshot = b->failed ? NULL : malloc(sizeof(*snapshot) + b->length);
    if (snapshot) {
        snapshot->length = b->length;
        snapshot->count = b->count;
        snapshot->truncated = b->truncated;
        if (b->length) memcpy(snapshot->bytes, b->bytes, b->length);
        // The previous snapshot is leaked on purpose: a handler on another thread may
        // still be reading it, and it is small.
        atomic_store(&current_modules, snapshot);
    }
    free(b->bytes);
    free(b);
    return snapshot ? 0 : -1;
}

// ---------------------------------------------------------------------------------
// Alternate signal stacks

static pthread_key_t alternate_stack_key;
static pthread_once_t alternate_stack_key_once = PTHREAD_ONCE_INIT;

// The thread's key holds the mapping itself (guard page, then the stack), whose size is the same for every
// thread: nothing is allocated with malloc on the new thread, whose first malloc would make glibc reserve
// an arena of 64 MiB of address space for it (the wrapper would cost each thread that never allocates
// megabytes instead of 68 KiB).
static size_t alternate_stack_mapping_size(void) {
    return AXIOM_CRASH_ALTERNATE_STACK_SIZE + (size_t)sysconf(_SC_PAGESIZE);
}

static void release_alternate_stack(void *mapping) {
    stack_t disable = {.ss_flags = SS_DISABLE};
    sigaltstack(&disable, NULL);
    munmap(mapping, alternate_stack_mapping_size());
}

static void create_alternate_stack_key(void) { pthread_key_create(&alternate_stack_key, release_alternate_stack); }

int axiom_crash_prepare_thread(void) {
    stack_t current = {.ss_flags = SS_DISABLE};
    if (sigaltstack(NULL, &current) != 0) return -1;
    if (!(current.ss_flags & SS_DISABLE) && current.ss_size >= AXIOM_CRASH_ALTERNATE_STACK_SIZE) return 0;
    if (current.ss_flags & SS_ONSTACK) {
        errno = EBUSY;
        return -1;
    }
    pthread_once(&alternate_stack_key_once, create_alternate_stack_key);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = alternate_stack_mapping_size();
    // One guard page below the stack, so overflowing the handler's stack faults
    // instead of silently writing into a neighbouring mapping.
    void *mapping = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED) return -1;
    mprotect(mapping, page, PROT_NONE);
    stack_t wanted = {.ss_sp = (char *)mapping + page, .ss_size = AXIOM_CRASH_ALTERNATE_STACK_SIZE};
    if (sigaltstack(&wanted, NULL) != 0) {
        int saved = errno;
        munmap(mapping, size);
        errno = saved;
        return -1;
    }
    // A stack of ours that someone since replaced with a smaller one is no longer in
    // use (ours is big enough, so it cannot be the one we just replaced): release it.
    void *old = pthread_getspecific(alternate_stack_key);
    if (old) munmap(old, size);
    pthread_setspecific(alternate_stack_key, mapping);
    return 0;
}

// ---------------------------------------------------------------------------------
// Every thread gets an alternate signal stack: pthread_create is interposed
//
// A stack overflow can only be reported on a thread that has an alternate signal stack:
// without one the kernel cannot push the signal frame and kills the process silently. The
// application does not create most threads (the Swift concurrency pool's, via libdispatch;
// a C library's workers), so the reporter defines pthread_create in the executable: every
// call, from any library, comes here first, and once the reporter is installed the new
// thread starts by giving itself a stack (axiom_crash_prepare_thread: a 64 KiB mapping plus
// a guard page, released at thread exit). Before install, or when the wrapper cannot
// allocate, the call goes straight through.
//
// Only with the package's ThreadWrapper trait (on by default), which defines
// AXIOM_CRASH_WRAPS_PTHREAD_CREATE: an application that must own pthread_create itself turns the
// trait off, and gives its threads stacks with axiom_crash_prepare_thread.
//
// Not under a sanitizer: its runtime interposes pthread_create itself (a weak definition in
// the executable, like this one would be), and must see every thread.
#ifndef AXIOM_CRASH_WRAPS_PTHREAD_CREATE
#define AXIOM_CRASH_NO_THREAD_INTERPOSITION 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define AXIOM_CRASH_NO_THREAD_INTERPOSITION 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define AXIOM_CRASH_NO_THREAD_INTERPOSITION 1
#endif

#ifndef AXIOM_CRASH_NO_THREAD_INTERPOSITION
typedef int (*pthread_create_function)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static _Atomic(pthread_create_function) real_pthread_create;

struct thread_start {
    void *(*routine)(void *);
    void *argument;
};

// What a new thread is to run, handed over in one of 64 static slots rather than through malloc: the new
// thread would have to free it, and a thread's first malloc or free makes glibc reserve an arena for it
// (64 MiB of address space, shared once there are 8 per core). Only more than 64 threads starting at
// the same moment fall back to malloc.
#define THREAD_START_SLOTS 64
static struct thread_start thread_start_slots[THREAD_START_SLOTS];
static _Atomic uint64_t thread_start_slots_used;

static struct thread_start *take_thread_start(void) {
    uint64_t used = atomic_load_explicit(&thread_start_slots_used, memory_order_relaxed);
    while (~used) {
        int slot = __builtin_ctzll(~used);
        if (atomic_compare_exchange_weak_explicit(&thread_start_slots_used, &used, used | (UINT64_C(1) << slot),
                                                  memory_order_acquire, memory_order_relaxed))
            return &thread_start_slots[slot];
    }
    return malloc(sizeof(struct thread_start));
}

static void release_thread_start(struct thread_start *start) {
    uintptr_t offset = (uintptr_t)start - (uintptr_t)thread_start_slots;
    if (offset < sizeof(thread_start_slots)) {
        uint64_t bit = UINT64_C(1) << (offset / sizeof(struct thread_start));
        atomic_fetch_and_explicit(&thread_start_slots_used, ~bit, memory_order_release);
    } else {
        free(start);
    }
}

static void *start_with_alternate_stack(void *pointer) {
    struct thread_start start = *(struct thread_start *)pointer;
    release_thread_start(pointer);
    // A thread that cannot have a stack (out of memory) still runs; only its overflow goes unreported.
    (void)axiom_crash_prepare_thread();
    return start.routine(start.argument);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*routine)(void *), void *argument) {
    pthread_create_function real = atomic_load_explicit(&real_pthread_create, memory_order_acquire);
    if (!real) {
        real = (pthread_create_function)dlsym(RTLD_NEXT, "pthread_create");
        if (!real) return EAGAIN;
        atomic_store_explicit(&real_pthread_create, real, memory_order_release);
    }
    if (!atomic_load_explicit(&installed, memory_order_acquire)) return real(thread, attributes, routine, argument);
    struct thread_start *start = take_thread_start();
    if (!start) return real(thread, attributes, routine, argument);
    start->routine = routine;
    start->argument = argument;
    int result = real(thread, attributes, start_with_alternate_stack, start);
    if (result != 0) release_thread_start(start);
    return result;
}
#endif

int axiom_crash_prepares_new_threads(void) {
#ifndef AXIOM_CRASH_NO_THREAD_INTERPOSITION
    return 1;
#else
    return 0;
#endif
}

// ---------------------------------------------------------------------------------
// The handler (async-signal-safe from here to the end of axiom_crash_handler)

static int current_tid(void) { return (int)syscall(SYS_gettid); }

static void restore_previous_actions(void) {
    for (int i = 0; i < FATAL_SIGNAL_COUNT; i++) sigaction(fatal_signals[i], &previous_actions[i], NULL);
}

// Whether the process dies at once after the report, skipping the handlers installed before install.
static _Atomic int dies_at_once;

void axiom_crash_set_dies_at_once(int value) { atomic_store(&dies_at_once, value != 0); }

// The Axiom version for every report's header, NUL-padded: written before install (under its lock), only read after.
static char axiom_version[AXIOM_CRASH_AXIOM_VERSION_LENGTH];

void axiom_crash_set_axiom_version(const char *version) {
    pthread_mutex_lock(&install_lock);
    if (!atomic_load(&installed) && version) {
        size_t length = strlen(version);
        if (length >= sizeof(axiom_version)) length = sizeof(axiom_version) - 1;
        memset(axiom_version, 0, sizeof(axiom_version));
        memcpy(axiom_version, version, length);
    }
    pthread_mutex_unlock(&install_lock);
}

/// The default action for every fatal signal: the process dies by the signal, and no earlier handler runs.
static void set_default_actions(void) {
    struct sigaction default_action;
    memset(&default_action, 0, sizeof(default_action));
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    for (int i = 0; i < FATAL_SIGNAL_COUNT; i++) sigaction(fatal_signals[i], &default_action, NULL);
}

/// Appends the decimal digits of `value` at `out`; returns the new end.
static char *append_decimal(char *out, uint64_t value) {
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    while (n) *out++ = digits[--n];
    return out;
}

static char *append_text(char *out, const char *text) {
    while (*text) *out++ = *text++;
    return out;
}

static int write_all(int fd, const void *data, size_t length) {
    const uint8_t *p = data;
    while (length) {
        ssize_t n = write(fd, p, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        length -= (size_t)n;
    }
    return 0;
}

static void capture_registers(const ucontext_t *uc, uint64_t registers[REGISTER_COUNT]) {
#if defined(__x86_64__)
    static const int order[AXIOM_CRASH_X86_64_REGISTER_COUNT] = {
        REG_RIP, REG_RSP, REG_RBP, REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
        REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_EFL,
    };
    for (int i = 0; i < AXIOM_CRASH_X86_64_REGISTER_COUNT; i++) registers[i] = (uint64_t)uc->uc_mcontext.gregs[order[i]];
#elif defined(__aarch64__)
    // x0 … x28, then fp (x29) and lr (x30): the kernel's regs[0 … 30], in order.
    for (int i = 0; i < 31; i++) registers[i] = uc->uc_mcontext.regs[i];
    registers[31] = uc->uc_mcontext.sp;
    registers[32] = uc->uc_mcontext.pc;
#endif
}

/// Unwinds from the interrupted context into `frames` (at most `capacity`); frames[0] is
/// the interrupted pc. Frames beyond `capacity` are counted (up to a bound) in `*omitted`.
static uint32_t capture_frames(ucontext_t *uc, uint64_t *frames, uint32_t capacity, uint32_t *omitted,
                               int *unwind_failed, uint64_t *frame_pointers, uint64_t *stack_pointers) {
    uint32_t count = 0;
    *omitted = 0;
    *unwind_failed = 0;
    unw_cursor_t cursor;
    // On x86_64 unw_context_t is ucontext_t, on aarch64 Linux a prefix of it: the signal's
    // context is the start.
    if (unw_init_local2(&cursor, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
        for (;;) {
            unw_word_t pc;
            if (unw_get_reg(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0) break;
            if (count < capacity) {
#if defined(__x86_64__)
                if (frame_pointers) {
                    unw_word_t fp = 0, sp = 0;
                    unw_get_reg(&cursor, UNW_X86_64_RBP, &fp);
                    unw_get_reg(&cursor, UNW_REG_SP, &sp);
                    frame_pointers[count] = fp;
                    stack_pointers[count] = sp;
                }
#else
                (void)frame_pointers;
                (void)stack_pointers;
#endif
                frames[count++] = pc;
            } else if (++*omitted >= 100000) {
                break;  // a corrupt stack that loops: stop counting
            }
            if (unw_step(&cursor) <= 0) break;
        }
    }
    if (count == 0) {
        *unwind_failed = 1;
        frames[count++] = CONTEXT_PC(uc);
    }
    return count;
}

// ---------------------------------------------------------------------------------
// Work area: everything the handler fills, allocated at install (mmap), so a crash on a
// full heap or in malloc still gets its report.

/// One other thread's stack, captured by that thread in its own handler of the dump signal.
struct thread_capture {
    /// Protocol between the crashed thread (C) and the thread asked (T), AXIOM_CRASH_ANSWER_*:
    /// C: IDLE → REQUESTED, then tgkill. T: REQUESTED → RUNNING, unwind, RUNNING → DONE.
    /// C, at its first deadline: REQUESTED → ABANDONED (T then does nothing); at its last, it settles
    /// every slot: one still RUNNING is abandoned too and not read (T finishes writing a slot nobody reads, and its
    /// RUNNING → DONE fails). After REQUESTED, only the axiom_crash_answer_* calls change it.
    int state;
    /// The settled state, written by C alone once the deadline has passed: what the report's
    /// plan and its writing both read.
    int settled;
    int tid;
    uint32_t frame_count;
    uint32_t omitted_frames;
    int unwind_failed;
    char name[AXIOM_CRASH_THREAD_NAME_LENGTH];
    uint64_t frames[AXIOM_CRASH_MAX_THREAD_FRAMES];
};

int axiom_crash_answer_begin(int *state) {
    int expected = AXIOM_CRASH_ANSWER_REQUESTED;
    return __atomic_compare_exchange_n(state, &expected, AXIOM_CRASH_ANSWER_RUNNING, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

int axiom_crash_answer_finish(int *state) {
    // A compare-and-swap, never a store: a store would turn a slot the crashed thread already
    // abandoned (and planned as unanswered) into DONE under the report being written.
    int expected = AXIOM_CRASH_ANSWER_RUNNING;
    return __atomic_compare_exchange_n(state, &expected, AXIOM_CRASH_ANSWER_DONE, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

void axiom_crash_answer_close(int *state) {
    int expected = AXIOM_CRASH_ANSWER_REQUESTED;
    __atomic_compare_exchange_n(state, &expected, AXIOM_CRASH_ANSWER_ABANDONED, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
}

int axiom_crash_answer_settle(int *state) {
    int current = __atomic_load_n(state, __ATOMIC_SEQ_CST);
    while (current == AXIOM_CRASH_ANSWER_REQUESTED || current == AXIOM_CRASH_ANSWER_RUNNING) {
        if (__atomic_compare_exchange_n(state, &current, AXIOM_CRASH_ANSWER_ABANDONED, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return AXIOM_CRASH_ANSWER_ABANDONED;
    }
    return current;
}

#define MODULE_AREA_SIZE (512 * 1024)
#define MAX_RECENT_ERRORS AXIOM_RECENT_ERROR_CAPACITY

/// An async function's callers, read from its async context (see capture_async_chains).
struct async_chain {
    uint32_t frame_index;
    uint32_t count;
    uint64_t resume_points[AXIOM_CRASH_MAX_ASYNC_FRAMES];
};

struct work_area {
    struct thread_capture threads[AXIOM_CRASH_MAX_THREADS];
    uint64_t frame_pointers[AXIOM_CRASH_MAX_FRAMES];
    uint64_t stack_pointers[AXIOM_CRASH_MAX_FRAMES];
    struct async_chain chains[AXIOM_CRASH_MAX_ASYNC_CHAINS];
    struct axiom_recent_error errors[MAX_RECENT_ERRORS];
    char message[AXIOM_CRASH_MAX_MESSAGE];
    uint8_t modules[MODULE_AREA_SIZE];
};
static struct work_area *work;
static size_t work_size;

/// How long the crashed thread waits, in all, for the other threads to take the request for their stacks.
#define THREAD_DUMP_DEADLINE_NS (500 * 1000000LL)
/// How long, in all, it waits for a thread that took the request and is unwinding: on a loaded machine (or under a
/// sanitizer, which delivers signals late) a thread can begin just before the first deadline, and its stack is then
/// almost always a few milliseconds away. A thread stuck inside its answer is abandoned at this one.
#define THREAD_DUMP_RUNNING_DEADLINE_NS (2000 * 1000000LL)

/// The signal that asks a thread for its stack: SIGPROF, because libdispatch's worker
/// threads (the Swift concurrency cooperative pool runs on them) block every signal but the
/// synchronous ones and SIGPROF, which they leave open for profilers. The crashed thread puts
/// the dump handler on it only for the time of the dump, then puts the previous action back.
#define DUMP_SIGNAL SIGPROF
static int task_directory_fd = -1;

/// Where the runtime leaves its fatal message: Swift's `swift_getFatalErrorMessageBuffer()`
/// (the message of fatalError, precondition, a force-unwrap of nil, an index out of range)
/// and glibc's `__abort_msg` (assert, __libc_fatal). Found at install; NULL when absent.
static _Atomic(const char *) *swift_fatal_message;
struct glibc_abort_message {
    unsigned int size;
    char text[];
};
static struct glibc_abort_message **glibc_abort_message;

/// Set once the report is written: threads that gave their stack may go on.
static atomic_int dump_release;

static void dump_handler(int signal, siginfo_t *info, void *context) {
    (void)signal;
    (void)info;
    int saved_errno = errno;
    struct work_area *area = work;
    int tid = current_tid();
    if (area) {
        for (int i = 0; i < AXIOM_CRASH_MAX_THREADS; i++) {
            struct thread_capture *capture = &area->threads[i];
            if (capture->tid != tid) continue;
            if (!axiom_crash_answer_begin(&capture->state)) break;
            capture->frame_count = capture_frames((ucontext_t *)context, capture->frames,
                                                  AXIOM_CRASH_MAX_THREAD_FRAMES, &capture->omitted_frames,
                                                  &capture->unwind_failed, NULL, NULL);
            axiom_crash_answer_finish(&capture->state);
            // Stay here until the report is written: the thread's state does not change under the
            // report, and a thread woken from sleep(3) or poll(2) does not run on (EINTR) while the
            // process is dying. Bounded, in case a previous handler lets the process live.
            for (int waited = 0; !atomic_load(&dump_release) && waited < 30000; waited++) {
                struct timespec pause = {0, 1000000};
                nanosleep(&pause, NULL);
            }
            break;
        }
    }
    errno = saved_errno;
}

static int64_t monotonic_ns(void) {
    struct timespec now = {0, 0};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/// Reads /proc/self/task/<tid>/comm into `name` (NUL-padded, newline dropped).
static void read_thread_name(int tid, char name[AXIOM_CRASH_THREAD_NAME_LENGTH]) {
    __builtin_memset(name, 0, AXIOM_CRASH_THREAD_NAME_LENGTH);
    char path[32];
    *append_text(append_decimal(path, (uint64_t)tid), "/comm") = '\0';
    int fd = openat(task_directory_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, name, AXIOM_CRASH_THREAD_NAME_LENGTH - 1);
    close(fd);
    if (n <= 0) {
        name[0] = '\0';
        return;
    }
    if (name[n - 1] == '\n') name[n - 1] = '\0';
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/// Asks every other thread for its stack and waits, bounded, for the answers. Returns
/// the number of slots used; `*omitted` counts threads beyond AXIOM_CRASH_MAX_THREADS.
static uint32_t capture_other_threads(int crashed_tid, uint32_t *omitted) {
    *omitted = 0;
    if (task_directory_fd < 0 || !work) return 0;
    uint32_t count = 0;
    int pid = getpid();
    char buffer[4096] __attribute__((aligned(8)));
    if (lseek(task_directory_fd, 0, SEEK_SET) != 0) return 0;
    struct sigaction dump_action, previous_dump_action;
    __builtin_memset(&dump_action, 0, sizeof(dump_action));
    dump_action.sa_sigaction = dump_handler;
    // SA_RESTART: a thread interrupted in read(2) or futex(2) goes back to waiting.
    dump_action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&dump_action.sa_mask);
    int can_ask = sigaction(DUMP_SIGNAL, &dump_action, &previous_dump_action) == 0;
    for (;;) {
        long n = syscall(SYS_getdents64, task_directory_fd, buffer, sizeof(buffer));
        if (n <= 0) break;
        for (long offset = 0; offset < n;) {
            struct linux_dirent64 *entry = (struct linux_dirent64 *)(buffer + offset);
            offset += entry->d_reclen;
            int tid = 0;
            const char *c = entry->d_name;
            if (*c < '0' || *c > '9') continue;
            while (*c >= '0' && *c <= '9') tid = tid * 10 + (*c++ - '0');
            if (tid == crashed_tid) continue;
            if (count == AXIOM_CRASH_MAX_THREADS) {
                (*omitted)++;
                continue;
            }
            struct thread_capture *capture = &work->threads[count++];
            capture->tid = tid;
            capture->frame_count = 0;
            capture->omitted_frames = 0;
            capture->settled = AXIOM_CRASH_ANSWER_ABANDONED;
            read_thread_name(tid, capture->name);
            __atomic_store_n(&capture->state, AXIOM_CRASH_ANSWER_REQUESTED, __ATOMIC_SEQ_CST);
            // Gone meanwhile, or no signal.
            if (!can_ask || syscall(SYS_tgkill, pid, tid, DUMP_SIGNAL) != 0) axiom_crash_answer_close(&capture->state);
        }
    }
    // One deadline for all, since the threads answer in parallel: the first for threads yet to begin, the second
    // for threads that began (the wait goes on past the first only while one is unwinding).
    int64_t asked = monotonic_ns();
    int64_t deadline = asked + THREAD_DUMP_DEADLINE_NS, running_deadline = asked + THREAD_DUMP_RUNNING_DEADLINE_NS;
    int late = 0;
    for (;;) {
        int64_t now = monotonic_ns();
        if (!late && now >= deadline) {
            // Past the first deadline a thread that has not begun never will: its slot is abandoned now.
            late = 1;
            for (uint32_t i = 0; i < count; i++) axiom_crash_answer_close(&work->threads[i].state);
        }
        int pending = 0;
        for (uint32_t i = 0; i < count; i++) {
            int state = __atomic_load_n(&work->threads[i].state, __ATOMIC_SEQ_CST);
            if (state == AXIOM_CRASH_ANSWER_REQUESTED || state == AXIOM_CRASH_ANSWER_RUNNING) pending = 1;
        }
        if (!pending || now >= running_deadline) break;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
    }
    for (uint32_t i = 0; i < count; i++) work->threads[i].settled = axiom_crash_answer_settle(&work->threads[i].state);
    // A late answer finds its slot abandoned and does nothing; one already running writes a
    // slot nobody reads, and leaves it abandoned. Either way the previous SIGPROF action (a
    // profiler's) comes back.
    if (can_ask) sigaction(DUMP_SIGNAL, &previous_dump_action, NULL);
    return count;
}

/// Copies the runtime's fatal message, if it left one, into the work area; returns its length.
static uint32_t capture_message(void) {
    const char *text = NULL;
    size_t limit = AXIOM_CRASH_MAX_MESSAGE;
    if (swift_fatal_message) text = atomic_load(swift_fatal_message);
    if (!text && glibc_abort_message && *glibc_abort_message) {
        text = (*glibc_abort_message)->text;
        if ((*glibc_abort_message)->size < limit) limit = (*glibc_abort_message)->size;
    }
    if (!text) return 0;
    uint32_t length = 0;
    while (length < limit && text[length]) {
        work->message[length] = text[length];
        length++;
    }
    // The runtime ends its messages with a newline; the report's description has none.
    while (length && (work->message[length - 1] == '\n' || work->message[length - 1] == ' ')) length--;
    return length;
}

#if defined(__x86_64__)
/// Reads two words at `address` without trusting it (process_vm_readv answers EFAULT where a
/// load would fault again inside the handler). Async-signal-safe: one system call.
static int read_words(uint64_t address, uint64_t out[2]) {
    struct iovec local = {out, 16};
    struct iovec remote = {(void *)(uintptr_t)address, 16};
    return syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL) == 16;
}

/// Whether `address` lies in the executable text of a module of the report.
static int in_module_text(uint64_t address, const uint8_t *modules, uint32_t module_count, uint32_t length) {
    uint32_t offset = 0;
    for (uint32_t i = 0; i < module_count && offset + AXIOM_CRASH_MODULE_RECORD_FIXED_LENGTH <= length; i++) {
        uint64_t base, end;
        uint16_t build_id_length, path_length;
        __builtin_memcpy(&base, modules + offset + 8, 8);
        __builtin_memcpy(&end, modules + offset + 16, 8);
        __builtin_memcpy(&build_id_length, modules + offset + 24, 2);
        __builtin_memcpy(&path_length, modules + offset + 26, 2);
        if (address >= base && address < end) return 1;
        offset += AXIOM_CRASH_MODULE_RECORD_FIXED_LENGTH + build_id_length + path_length;
    }
    return 0;
}
#endif

/// A Swift async function's callers are not on the thread's stack (it runs from the executor),
/// but in its async context: on x86_64 a partial function that keeps a frame record stores
/// its async context just below it (rbp - 8), and each context starts with its caller's
/// context and the resume point in the caller. Without symbols the handler cannot tell which
/// frame is async (Linux's Swift does not tag async frame records), so it follows the chain
/// from every frame whose record checks out (it is where the unwinder says, and holds the
/// next frame's return address) and whose chain leads only into modules' text; the
/// symbolicator keeps a chain only where the frame's function is async. Resume points are
/// stored plus one, so that like return addresses they are looked up one byte back.
static uint32_t capture_async_chains(const uint64_t *frames, uint32_t frame_count, const uint8_t *modules,
                                     uint32_t module_count, uint32_t module_length) {
#if defined(__x86_64__)
    uint32_t chains = 0;
    for (uint32_t i = 0; i + 1 < frame_count && chains < AXIOM_CRASH_MAX_ASYNC_CHAINS; i++) {
        uint64_t fp = work->frame_pointers[i], sp = work->stack_pointers[i];
        if (fp <= sp || fp - sp > 65536 || (fp & 15) != 0) continue;
        uint64_t record[2];
        if (!read_words(fp, record) || record[1] != frames[i + 1]) continue;
        uint64_t context_slot[2];
        if (!read_words(fp - 16, context_slot)) continue;
        uint64_t context = context_slot[1];
        struct async_chain *chain = &work->chains[chains];
        chain->frame_index = i;
        chain->count = 0;
        int plausible = 1;
        while (context && (context & 15) == 0 && chain->count < AXIOM_CRASH_MAX_ASYNC_FRAMES) {
            uint64_t words[2];
            if (!read_words(context, words) || words[1] == 0) break;
            if (!in_module_text(words[1], modules, module_count, module_length)) {
                plausible = 0;
                break;
            }
            chain->resume_points[chain->count++] = words[1] + 1;
            context = words[0];
        }
        if (plausible && chain->count > 0) chains++;
    }
    return chains;
#else
    (void)frames;
    (void)frame_count;
    (void)modules;
    (void)module_count;
    (void)module_length;
    return 0;
#endif
}

struct record_plan {
    uint32_t count;
    uint64_t length;
};

static void plan_record(struct record_plan *plan, uint64_t payload) {
    plan->count++;
    plan->length += AXIOM_CRASH_RECORD_HEADER_LENGTH + payload;
}

static int write_record_header(int fd, uint16_t type, uint32_t length) {
    uint8_t header[AXIOM_CRASH_RECORD_HEADER_LENGTH] = {0};
    __builtin_memcpy(header, &type, 2);
    __builtin_memcpy(header + 4, &length, 4);
    return write_all(fd, header, sizeof(header));
}

/// `crash-<seconds>-<pid>-<tid>-<counter>.axcrash` into `name`, and the same with `.tmp` into `temporary_name`.
static void make_report_name(char *name, char *temporary_name, uint64_t seconds, int32_t pid, int tid) {
    char *end = append_text(name, "crash-");
    end = append_decimal(end, seconds);
    *end++ = '-';
    end = append_decimal(end, (uint64_t)pid);
    *end++ = '-';
    end = append_decimal(end, (uint64_t)tid);
    *end++ = '-';
    end = append_decimal(end, atomic_fetch_add(&report_counter, 1));
    end = append_text(end, AXIOM_CRASH_FILE_SUFFIX);
    *end = '\0';
    *append_text(append_text(temporary_name, name), ".tmp") = '\0';
}

/// Whether `name` exists in the report directory (fstatat: a system call, async-signal-safe).
static int name_is_taken(const char *name) {
    struct stat info;
    return fstatat(report_directory_fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0;
}

/// Renames `from` to `to` in the report directory unless `to` exists (then -1 with EEXIST). On a kernel or file
/// system without renameat2's RENAME_NOREPLACE, a plain renameat after checking that `to` is free.
static int rename_no_replace(const char *from, const char *to) {
#ifdef SYS_renameat2
    if (syscall(SYS_renameat2, report_directory_fd, from, report_directory_fd, to, 1 /* RENAME_NOREPLACE */) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
#endif
    if (name_is_taken(to)) {
        errno = EEXIST;
        return -1;
    }
    return renameat(report_directory_fd, from, report_directory_fd, to);
}

/// One line on standard error when the report cannot be written, so the crash is not silent:
/// `axiom: crash report <what>: <directory>/<name> (errno N)`. write(2) on fd 2 only: no stdio, no malloc.
static void say_not_written(const char *what, const char *name, int error) {
    char line[sizeof(report_directory_path) + 256];
    char *end = append_text(line, "axiom: crash report ");
    end = append_text(end, what);
    end = append_text(end, ": ");
    end = append_text(end, report_directory_path);
    *end++ = '/';
    end = append_text(end, name);
    if (error) {
        end = append_text(end, " (errno ");
        end = append_decimal(end, (uint64_t)error);
        *end++ = ')';
    }
    *end++ = '\n';
    (void)write_all(2, line, (size_t)(end - line));
}

static void write_report(int signal, const siginfo_t *info, ucontext_t *uc, int tid) {
    static const uint8_t trailer[AXIOM_CRASH_TRAILER_LENGTH] = AXIOM_CRASH_TRAILER_MAGIC;
    struct axiom_crash_header header;
    uint64_t registers[REGISTER_COUNT];
    uint64_t frames[AXIOM_CRASH_MAX_FRAMES];
    struct timespec now = {0, 0};
    int64_t started = monotonic_ns();

    clock_gettime(CLOCK_REALTIME, &now);
    __builtin_memset(&header, 0, sizeof(header));
    __builtin_memcpy(header.magic, AXIOM_CRASH_MAGIC, AXIOM_CRASH_MAGIC_LENGTH);
    header.version = AXIOM_CRASH_FORMAT_VERSION;
    header.header_length = sizeof(header);
    header.architecture = REPORT_ARCHITECTURE;
    header.register_count = REGISTER_COUNT;
    header.signal = signal;
    header.si_code = info ? info->si_code : 0;
    header.fault_address = info ? (uint64_t)(uintptr_t)info->si_addr : 0;
    header.pid = (int32_t)getpid();
    header.tid = tid;
    header.timestamp_seconds = now.tv_sec;
    header.timestamp_nanoseconds = now.tv_nsec;
    prctl(PR_GET_NAME, header.thread_name, 0, 0, 0);
    header.thread_name[sizeof(header.thread_name) - 1] = '\0';
    __builtin_memcpy(header.axiom_version, axiom_version, sizeof(header.axiom_version));

    capture_registers(uc, registers);
    uint32_t omitted_frames = 0;
    int unwind_failed = 0;
    header.frame_count = capture_frames(uc, frames, AXIOM_CRASH_MAX_FRAMES, &omitted_frames, &unwind_failed,
                                        work ? work->frame_pointers : NULL, work ? work->stack_pointers : NULL);
    if (omitted_frames) header.flags |= AXIOM_CRASH_FLAG_FRAMES_TRUNCATED;
    if (unwind_failed) header.flags |= AXIOM_CRASH_FLAG_UNWIND_FAILED;

    // The modules loaded now, dlopen'd ones included. dl_iterate_phdr takes the loader's
    // (recursive) lock; the unwinder above already did, to find unwind tables, so this adds
    // no new way to block. If the work area cannot hold them, the install-time snapshot is used.
    const uint8_t *module_bytes = NULL;
    if (work) {
        struct snapshot_builder live = {
            .bytes = work->modules, .capacity = MODULE_AREA_SIZE, .fixed = 1, .executable_path = executable_path};
        dl_iterate_phdr(snapshot_module, &live);
        if (!live.failed && live.count > 0) {
            module_bytes = work->modules;
            header.module_count = live.count;
            header.module_section_length = (uint32_t)live.length;
            if (live.truncated) header.flags |= AXIOM_CRASH_FLAG_MODULES_TRUNCATED;
        }
    }
    if (!module_bytes) {
        const struct module_snapshot *modules = atomic_load(&current_modules);
        if (modules) {
            module_bytes = modules->bytes;
            header.module_count = modules->count;
            header.module_section_length = (uint32_t)modules->length;
            header.flags |= AXIOM_CRASH_FLAG_MODULES_AT_INSTALL;
            if (modules->truncated) header.flags |= AXIOM_CRASH_FLAG_MODULES_TRUNCATED;
        }
    }

    // Records: the message, the other threads, the flight recorder.
    struct record_plan plan = {0, 0};
    uint32_t message_length = 0, thread_count = 0, omitted_threads = 0, error_count = 0, chain_count = 0;
    struct axiom_active_trace active_trace;
    int has_trace = axiom_flight_recorder_current_trace(&active_trace);
    if (has_trace) plan_record(&plan, sizeof(active_trace));
    size_t plugins_length = 0;
    const uint8_t *plugins = NULL;
    if (work) {
        message_length = capture_message();
        if (message_length) plan_record(&plan, message_length);
        thread_count = capture_other_threads(tid, &omitted_threads);
        for (uint32_t i = 0; i < thread_count; i++) {
            struct thread_capture *capture = &work->threads[i];
            uint32_t count = capture->settled == AXIOM_CRASH_ANSWER_DONE ? capture->frame_count : 0;
            plan_record(&plan, AXIOM_CRASH_THREAD_RECORD_FIXED_LENGTH + count * 8ull);
        }
        if (omitted_threads) plan_record(&plan, 8);
        error_count = (uint32_t)axiom_flight_recorder_copy_errors(work->errors, MAX_RECENT_ERRORS);
        for (uint32_t i = 0; i < error_count; i++) plan_record(&plan, AXIOM_RECENT_ERROR_LENGTH);
        plugins = axiom_flight_recorder_plugins(&plugins_length);
        if (plugins && plugins_length) plan_record(&plan, plugins_length);
        chain_count = module_bytes ? capture_async_chains(frames, header.frame_count, module_bytes,
                                                          header.module_count, header.module_section_length)
                                   : 0;
        for (uint32_t i = 0; i < chain_count; i++) plan_record(&plan, 8 + work->chains[i].count * 8ull);
    }
    header.capture_nanoseconds = (uint64_t)(monotonic_ns() - started);
    header.record_count = plan.count;
    header.record_section_length = (uint32_t)plan.length;
    header.total_length = sizeof(header) + sizeof(registers) + header.frame_count * 8ull +
                          header.module_section_length + plan.length + AXIOM_CRASH_TRAILER_LENGTH;

    // crash-<seconds>-<pid>-<tid>-<counter>.axcrash, written as ….axcrash.tmp first. The name is unique to
    // this process (pid, tid, counter); two processes of separate pid namespaces that share the folder can
    // still pick the same one, so the .tmp is created exclusively, the final name is taken without replacing
    // another's (renameat2 RENAME_NOREPLACE), and a name already taken moves on to the next counter.
    char name[128];
    char temporary_name[sizeof(name) + 4];
    int fd = -1;
    int open_errno = 0;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        make_report_name(name, temporary_name, (uint64_t)now.tv_sec, header.pid, tid);
        fd = openat(report_directory_fd, temporary_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            open_errno = errno;
            if (open_errno != EEXIST) break;
        } else if (name_is_taken(name)) {
            // The final name is another process's report: give the .tmp back and take the next counter.
            close(fd);
            unlinkat(report_directory_fd, temporary_name, 0);
            fd = -1;
            open_errno = EEXIST;
        }
    }
    if (fd < 0) {
        say_not_written("could not be created", temporary_name, open_errno);
        return;
    }
    int failed = write_all(fd, &header, sizeof(header)) || write_all(fd, registers, sizeof(registers)) ||
                 write_all(fd, frames, header.frame_count * 8ull) ||
                 (module_bytes && write_all(fd, module_bytes, header.module_section_length));
    if (!failed && message_length)
        failed = write_record_header(fd, AXIOM_CRASH_RECORD_MESSAGE, message_length) ||
                 write_all(fd, work->message, message_length);
    for (uint32_t i = 0; !failed && i < thread_count; i++) {
        struct thread_capture *capture = &work->threads[i];
        int answered = capture->settled == AXIOM_CRASH_ANSWER_DONE;
        uint32_t count = answered ? capture->frame_count : 0;
        uint32_t fixed[4] = {(uint32_t)capture->tid, 0, count, answered ? capture->omitted_frames : 0};
        if (!answered) fixed[1] |= AXIOM_CRASH_THREAD_NO_ANSWER;
        if (answered && capture->omitted_frames) fixed[1] |= AXIOM_CRASH_THREAD_FRAMES_TRUNCATED;
        if (answered && capture->unwind_failed) fixed[1] |= AXIOM_CRASH_THREAD_UNWIND_FAILED;
        failed = write_record_header(fd, AXIOM_CRASH_RECORD_THREAD,
                                     AXIOM_CRASH_THREAD_RECORD_FIXED_LENGTH + count * 8) ||
                 write_all(fd, fixed, sizeof(fixed)) || write_all(fd, capture->name, sizeof(capture->name)) ||
                 write_all(fd, capture->frames, count * 8ull);
    }
    if (!failed && omitted_threads) {
        uint32_t payload[2] = {omitted_threads, 0};
        failed = write_record_header(fd, AXIOM_CRASH_RECORD_THREADS_OMITTED, 8) || write_all(fd, payload, 8);
    }
    for (uint32_t i = 0; !failed && i < error_count; i++)
        failed = write_record_header(fd, AXIOM_CRASH_RECORD_RECENT_ERROR, AXIOM_RECENT_ERROR_LENGTH) ||
                 write_all(fd, &work->errors[i], AXIOM_RECENT_ERROR_LENGTH);
    if (!failed && plugins && plugins_length)
        failed = write_record_header(fd, AXIOM_CRASH_RECORD_PLUGINS, (uint32_t)plugins_length) ||
                 write_all(fd, plugins, plugins_length);
    for (uint32_t i = 0; !failed && i < chain_count; i++) {
        struct async_chain *chain = &work->chains[i];
        uint32_t fixed[2] = {chain->frame_index, chain->count};
        failed = write_record_header(fd, AXIOM_CRASH_RECORD_ASYNC_CHAIN, 8 + chain->count * 8) ||
                 write_all(fd, fixed, sizeof(fixed)) || write_all(fd, chain->resume_points, chain->count * 8ull);
    }
    if (!failed && has_trace)
        failed = write_record_header(fd, AXIOM_CRASH_RECORD_ACTIVE_TRACE, sizeof(active_trace)) ||
                 write_all(fd, &active_trace, sizeof(active_trace));
    if (!failed) failed = write_all(fd, trailer, sizeof(trailer));
    int write_errno = failed ? errno : 0;
    close(fd);
    // A failed write leaves the .tmp file: visibly incomplete, never mistaken for a report. Its name keeps the
    // writer's pid, so a later run can tell it was abandoned (see CrashReporter.incompleteReports).
    if (failed) {
        say_not_written("was cut short", temporary_name, write_errno);
        return;
    }
    for (int attempt = 0; attempt < 16; attempt++) {
        if (rename_no_replace(temporary_name, name) == 0) return;
        if (errno != EEXIST) break;
        // Taken since the check above: the next counter's name.
        char next_temporary[sizeof(temporary_name)];
        make_report_name(name, next_temporary, (uint64_t)now.tv_sec, header.pid, tid);
    }
    say_not_written("could not be renamed into place", temporary_name, errno);
}

/// Lets the signal reach the previous action once this handler returns.
static void pass_signal_on(int signal, siginfo_t *info, int tid) {
    // A hardware fault recurs by itself when the faulting instruction runs again, with
    // its real siginfo and context. Anything else (abort's raise, kill, int3, whose pc
    // is already past the trap) is sent again; it stays blocked until we return.
    int recurs = info && info->si_code > 0 &&
                 (signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE);
    if (recurs) return;
    // rt_tgsigqueueinfo keeps the original siginfo, but the kernel accepts a
    // kernel-style si_code only from the thread whose id is the process id (the main
    // thread); elsewhere tgkill resends the bare signal.
    if (info && syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, signal, info) == 0) return;
    syscall(SYS_tgkill, getpid(), tid, signal);
}

static void axiom_crash_handler(int signal, siginfo_t *info, void *context) {
    int saved_errno = errno;
    int tid = current_tid();
    int expected = 0;
    if (!atomic_compare_exchange_strong(&handler_owner, &expected, tid)) {
        if (expected == tid) {
            // The handler faulted while writing: step aside so the fault recurs at the
            // previous handler or the default action.
            restore_previous_actions();
            errno = saved_errno;
            return;
        }
        // Another thread owns the handler and is about to end the process.
        for (;;) {
            struct timespec second = {1, 0};
            nanosleep(&second, NULL);
        }
    }
    write_report(signal, info, (ucontext_t *)context, tid);
    if (atomic_load(&dies_at_once))
        set_default_actions();
    else
        restore_previous_actions();
    atomic_store(&dump_release, 1);
    pass_signal_on(signal, info, tid);
    errno = saved_errno;
}

// ---------------------------------------------------------------------------------
// Install (not async-signal-safe)

/// Runs every call the handler makes once, so lazy symbol binding, libunwind's caches
/// and the vDSO are set up before a crash; also proves the directory is writable.
static int warm_up(int directory_fd) {
    unw_context_t context;
    unw_cursor_t cursor;
    unw_getcontext(&context);
    if (unw_init_local(&cursor, &context) == 0) {
        for (int n = 0; n < AXIOM_CRASH_MAX_FRAMES && unw_step(&cursor) > 0; n++) {
        }
    }
    void *addresses[64];
    unw_backtrace(addresses, 64);

    char name[16];
    struct timespec now;
    prctl(PR_GET_NAME, name, 0, 0, 0);
    clock_gettime(CLOCK_REALTIME, &now);
    (void)monotonic_ns();
    read_thread_name(current_tid(), name);
    struct snapshot_builder live = {
        .bytes = work->modules, .capacity = MODULE_AREA_SIZE, .fixed = 1, .executable_path = executable_path};
    dl_iterate_phdr(snapshot_module, &live);
    (void)axiom_flight_recorder_copy_errors(work->errors, MAX_RECENT_ERRORS);
    size_t plugins_length;
    (void)axiom_flight_recorder_plugins(&plugins_length);

    // The probe's names are this process's and this call's own (pid, counter): processes that install at once
    // into one folder each write, rename and remove their own probe, never another's.
    char probe[96], renamed[96];
    char *end = append_text(renamed, ".axiom-crash-install-check-");
    end = append_decimal(end, (uint64_t)getpid());
    *end++ = '-';
    end = append_decimal(end, atomic_fetch_add(&probe_counter, 1));
    *end = '\0';
    *append_text(append_text(probe, renamed), ".tmp") = '\0';
    int fd = openat(directory_fd, probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    int failed = write_all(fd, "x", 1);
    close(fd);
    if (!failed) failed = renameat(directory_fd, probe, directory_fd, renamed);
    int saved = errno;
    unlinkat(directory_fd, failed ? probe : renamed, 0);
    errno = saved;
    return failed ? -1 : 0;
}

/// Finds where the Swift runtime and glibc leave a fatal message.
static void find_message_sources(void) {
    typedef _Atomic(const char *) *(*swift_message_buffer)(void);
    swift_message_buffer buffer = (swift_message_buffer)dlsym(RTLD_DEFAULT, "swift_getFatalErrorMessageBuffer");
    if (buffer) swift_fatal_message = buffer();
    glibc_abort_message = (struct glibc_abort_message **)dlvsym(RTLD_DEFAULT, "__abort_msg", "GLIBC_PRIVATE");
}

int axiom_crash_install(const char *directory) {
    pthread_mutex_lock(&install_lock);
    int result = AXIOM_CRASH_INSTALLED;
    if (atomic_load(&installed)) {
        result = AXIOM_CRASH_ALREADY_INSTALLED;
        goto done;
    }
    ssize_t n = readlink("/proc/self/exe", executable_path, sizeof(executable_path) - 1);
    executable_path[n > 0 ? n : 0] = '\0';
    if (!work) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t size = (sizeof(struct work_area) + page - 1) / page * page;
        void *area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area == MAP_FAILED) {
            errno = ENOMEM;
            result = AXIOM_CRASH_ERROR_MEMORY;
            goto done;
        }
        work = area;
        work_size = size;
    }
    if (task_directory_fd < 0) task_directory_fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || warm_up(fd) != 0) {
        int saved = errno;
        if (fd >= 0) close(fd);
        errno = saved;
        result = AXIOM_CRASH_ERROR_DIRECTORY;
        goto done;
    }
    if (take_module_snapshot() != 0) {
        close(fd);
        errno = ENOMEM;
        result = AXIOM_CRASH_ERROR_MEMORY;
        goto done;
    }
    if (axiom_crash_prepare_thread() != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        result = AXIOM_CRASH_ERROR_ALTERNATE_STACK;
        goto done;
    }
    report_directory_fd = fd;
    size_t path_length = strlen(directory);
    if (path_length >= sizeof(report_directory_path)) path_length = sizeof(report_directory_path) - 1;
    memcpy(report_directory_path, directory, path_length);
    report_directory_path[path_length] = '\0';
    find_message_sources();

    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = axiom_crash_handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < FATAL_SIGNAL_COUNT; i++) {
        if (sigaction(fatal_signals[i], &action, &previous_actions[i]) != 0) {
            int saved = errno;
            for (int j = 0; j < i; j++) sigaction(fatal_signals[j], &previous_actions[j], NULL);
            close(fd);
            report_directory_fd = -1;
            errno = saved;
            result = AXIOM_CRASH_ERROR_SIGACTION;
            goto done;
        }
    }
    atomic_store(&installed, 1);
done:
    pthread_mutex_unlock(&install_lock);
    return result;
}

int axiom_crash_refresh_modules(void) {
    pthread_mutex_lock(&install_lock);
    int result = take_module_snapshot();
    pthread_mutex_unlock(&install_lock);
    return result;
}

int axiom_crash_is_installed(void) { return atomic_load(&installed); }
