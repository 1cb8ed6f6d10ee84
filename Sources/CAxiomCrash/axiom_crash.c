// Fatal-signal capture. Everything that can fail or allocate happens in
// axiom_crash_install; the handler only reads what install prepared and uses
// async-signal-safe calls (syscalls, libunwind's local unwinder).
//
//   install ──► alternate stack, report dir fd, module snapshot (pre-encoded bytes),
//               libunwind warm-up, sigaction ×6 (previous actions saved)
//   fault ────► handler: claim the owner flag ─► unwind from the signal context
//               ─► write <name>.tmp ─► rename to <name> ─► put previous actions back
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
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the raw report format is little-endian; this writer stores native integers"
#endif
#if !defined(__x86_64__)
#error "register capture is written for x86_64 only"
#endif

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define FATAL_SIGNAL_COUNT ((int)(sizeof(fatal_signals) / sizeof(fatal_signals[0])))

static struct sigaction previous_actions[FATAL_SIGNAL_COUNT];
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int installed;
static int report_directory_fd = -1;
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
    char executable_path[4096];
};

static void builder_append(struct snapshot_builder *b, const void *data, size_t length) {
    if (b->failed) return;
    if (b->length + length > b->capacity) {
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
    if (b->count >= AXIOM_CRASH_MAX_MODULES) {
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
    ssize_t n = readlink("/proc/self/exe", b->executable_path, sizeof(b->executable_path) - 1);
    b->executable_path[n > 0 ? n : 0] = '\0';
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

struct alternate_stack {
    void *mapping;
    size_t mapping_size;
};

static void release_alternate_stack(void *value) {
    struct alternate_stack *stack = value;
    stack_t disable = {.ss_flags = SS_DISABLE};
    sigaltstack(&disable, NULL);
    munmap(stack->mapping, stack->mapping_size);
    free(stack);
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
    struct alternate_stack *stack = malloc(sizeof(*stack));
    if (!stack) return -1;
    // One guard page below the stack, so overflowing the handler's stack faults
    // instead of silently writing into a neighbouring mapping.
    stack->mapping_size = AXIOM_CRASH_ALTERNATE_STACK_SIZE + page;
    stack->mapping = mmap(NULL, stack->mapping_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack->mapping == MAP_FAILED) {
        free(stack);
        return -1;
    }
    mprotect(stack->mapping, page, PROT_NONE);
    stack_t wanted = {.ss_sp = (char *)stack->mapping + page, .ss_size = AXIOM_CRASH_ALTERNATE_STACK_SIZE};
    if (sigaltstack(&wanted, NULL) != 0) {
        int saved = errno;
        munmap(stack->mapping, stack->mapping_size);
        free(stack);
        errno = saved;
        return -1;
    }
    // A stack of ours that someone since replaced with a smaller one is no longer in
    // use (ours is big enough, so it cannot be the one we just replaced): release it.
    struct alternate_stack *old = pthread_getspecific(alternate_stack_key);
    if (old) {
        munmap(old->mapping, old->mapping_size);
        free(old);
    }
    pthread_setspecific(alternate_stack_key, stack);
    return 0;
}

// ---------------------------------------------------------------------------------
// The handler (async-signal-safe from here to the end of axiom_crash_handler)

static int current_tid(void) { return (int)syscall(SYS_gettid); }

static void restore_previous_actions(void) {
    for (int i = 0; i < FATAL_SIGNAL_COUNT; i++) sigaction(fatal_signals[i], &previous_actions[i], NULL);
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

static void capture_registers(const ucontext_t *uc, uint64_t registers[AXIOM_CRASH_X86_64_REGISTER_COUNT]) {
    static const int order[AXIOM_CRASH_X86_64_REGISTER_COUNT] = {
        REG_RIP, REG_RSP, REG_RBP, REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
        REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_EFL,
    };
    for (int i = 0; i < AXIOM_CRASH_X86_64_REGISTER_COUNT; i++) registers[i] = (uint64_t)uc->uc_mcontext.gregs[order[i]];
}

/// Unwinds from the interrupted context; frames[0] is the faulting pc.
static uint32_t capture_frames(ucontext_t *uc, uint64_t frames[AXIOM_CRASH_MAX_FRAMES], uint32_t *flags) {
    uint32_t count = 0;
    unw_cursor_t cursor;
    // On x86_64 unw_context_t is ucontext_t, so the signal's context is the start.
    if (unw_init_local2(&cursor, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
        for (;;) {
            unw_word_t pc;
            if (unw_get_reg(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0) break;
            frames[count++] = pc;
            if (unw_step(&cursor) <= 0) break;
            if (count == AXIOM_CRASH_MAX_FRAMES) {
                *flags |= AXIOM_CRASH_FLAG_FRAMES_TRUNCATED;
                break;
            }
        }
    }
    if (count == 0) {
        *flags |= AXIOM_CRASH_FLAG_UNWIND_FAILED;
        frames[count++] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    }
    return count;
}

static void write_report(int signal, const siginfo_t *info, ucontext_t *uc, int tid) {
    static const uint8_t trailer[AXIOM_CRASH_TRAILER_LENGTH] = AXIOM_CRASH_TRAILER_MAGIC;
    struct axiom_crash_header header;
    uint64_t registers[AXIOM_CRASH_X86_64_REGISTER_COUNT];
    uint64_t frames[AXIOM_CRASH_MAX_FRAMES];
    struct timespec now = {0, 0};

    clock_gettime(CLOCK_REALTIME, &now);
    __builtin_memset(&header, 0, sizeof(header));
    __builtin_memcpy(header.magic, AXIOM_CRASH_MAGIC, AXIOM_CRASH_MAGIC_LENGTH);
    header.version = AXIOM_CRASH_FORMAT_VERSION;
    header.header_length = sizeof(header);
    header.architecture = AXIOM_CRASH_ARCH_X86_64;
    header.register_count = AXIOM_CRASH_X86_64_REGISTER_COUNT;
    header.signal = signal;
    header.si_code = info ? info->si_code : 0;
    header.fault_address = info ? (uint64_t)(uintptr_t)info->si_addr : 0;
    header.pid = (int32_t)getpid();
    header.tid = tid;
    header.timestamp_seconds = now.tv_sec;
    header.timestamp_nanoseconds = now.tv_nsec;
    prctl(PR_GET_NAME, header.thread_name, 0, 0, 0);
    header.thread_name[sizeof(header.thread_name) - 1] = '\0';

    capture_registers(uc, registers);
    header.frame_count = capture_frames(uc, frames, &header.flags);

    const struct module_snapshot *modules = atomic_load(&current_modules);
    if (modules) {
        header.module_count = modules->count;
        header.module_section_length = (uint32_t)modules->length;
        if (modules->truncated) header.flags |= AXIOM_CRASH_FLAG_MODULES_TRUNCATED;
    }
    header.total_length = sizeof(header) + sizeof(registers) + header.frame_count * 8ull +
                          header.module_section_length + AXIOM_CRASH_TRAILER_LENGTH;

    // crash-<seconds>-<pid>-<tid>-<counter>.axcrash, written as ….axcrash.tmp first.
    char name[128];
    char *end = append_text(name, "crash-");
    end = append_decimal(end, (uint64_t)now.tv_sec);
    *end++ = '-';
    end = append_decimal(end, (uint64_t)header.pid);
    *end++ = '-';
    end = append_decimal(end, (uint64_t)tid);
    *end++ = '-';
    end = append_decimal(end, atomic_fetch_add(&report_counter, 1));
    end = append_text(end, AXIOM_CRASH_FILE_SUFFIX);
    *end = '\0';
    char temporary_name[sizeof(name) + 4];
    *append_text(append_text(temporary_name, name), ".tmp") = '\0';

    int fd = openat(report_directory_fd, temporary_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return;
    int failed = write_all(fd, &header, sizeof(header)) || write_all(fd, registers, sizeof(registers)) ||
                 write_all(fd, frames, header.frame_count * 8ull) ||
                 (modules && write_all(fd, modules->bytes, modules->length)) ||
                 write_all(fd, trailer, sizeof(trailer));
    close(fd);
    // A failed write leaves the .tmp file: visibly incomplete, never mistaken for a report.
    if (!failed) renameat(report_directory_fd, temporary_name, report_directory_fd, name);
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
    restore_previous_actions();
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
    (void)current_tid();

    static const char probe[] = ".axiom-crash-install-check.tmp";
    static const char renamed[] = ".axiom-crash-install-check";
    int fd = openat(directory_fd, probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    int failed = write_all(fd, "x", 1);
    close(fd);
    if (!failed) failed = renameat(directory_fd, probe, directory_fd, renamed);
    unlinkat(directory_fd, failed ? probe : renamed, 0);
    return failed ? -1 : 0;
}

int axiom_crash_install(const char *directory) {
    pthread_mutex_lock(&install_lock);
    int result = AXIOM_CRASH_INSTALLED;
    if (atomic_load(&installed)) {
        result = AXIOM_CRASH_ALREADY_INSTALLED;
        goto done;
    }
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
