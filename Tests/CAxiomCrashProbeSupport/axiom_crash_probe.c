#define _GNU_SOURCE
#include "axiom_crash_probe.h"

#include <assert.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

void axiom_probe_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
}

__attribute__((noinline)) void axiom_probe_null_write(void) {
    volatile int *volatile pointer = NULL;
    *pointer = 42;  // crash-line: null-write
}

__attribute__((noinline)) int axiom_probe_divide_by_zero(void) {
    volatile int dividend = 1;
    volatile int divisor = 0;
    return dividend / divisor;  // crash-line: divide-by-zero
}

__attribute__((noinline)) int axiom_probe_bus_error(const char *path) {
    long page = sysconf(_SC_PAGESIZE);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, 2 * page) != 0) return -1;
    volatile char *mapping = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, fd, 0);
    if (mapping == MAP_FAILED) return -1;
    if (ftruncate(fd, 0) != 0) return -1;
    return mapping[page];  // crash-line: bus-error (beyond the end of the now empty file)
}

__attribute__((noinline)) void axiom_probe_trap(void) {
    __builtin_trap();  // crash-line: trap
}

__attribute__((noinline)) void axiom_probe_breakpoint(void) {
    __builtin_debugtrap();  // crash-line: breakpoint
}

__attribute__((noinline)) void axiom_probe_abort(void) {
    abort();  // crash-line: abort
}

__attribute__((noinline)) int axiom_probe_recurse(int depth) {
    volatile char frame[512];
    frame[depth & 511] = (char)depth;
    // Using the result after the call keeps it from becoming a loop or a tail call.
    return axiom_probe_recurse(depth + 1) + frame[(depth + 1) & 511];  // crash-line: recurse
}

struct thread_start {
    const char *name;
    void (*body)(void);
};

static void *run_thread(void *argument) {
    struct thread_start *start = argument;
    pthread_setname_np(pthread_self(), start->name);
    start->body();
    return NULL;
}

void axiom_probe_run_on_thread(const char *name, void (*body)(void)) {
    struct thread_start start = {name, body};
    pthread_t thread;
    if (pthread_create(&thread, NULL, run_thread, &start) == 0) pthread_join(thread, NULL);
}

static pthread_barrier_t both_ready;

__attribute__((noinline)) void axiom_probe_thread_crash(void) {
    volatile int *volatile pointer = NULL;
    *pointer = 7;  // crash-line: thread-crash
}

static void *crash_together(void *argument) {
    pthread_setname_np(pthread_self(), argument);
    pthread_barrier_wait(&both_ready);
    axiom_probe_thread_crash();
    return NULL;
}

void axiom_probe_two_threads_crash(void) {
    pthread_t first, second;
    pthread_barrier_init(&both_ready, NULL, 2);
    pthread_create(&first, NULL, crash_together, "probe-crash-1");
    pthread_create(&second, NULL, crash_together, "probe-crash-2");
    pthread_join(first, NULL);
    pthread_join(second, NULL);
}

// --- Threads alive at the crash: some blocked in a syscall, the others waiting on a condition.

static pthread_barrier_t workers_ready;
static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t workers_never = PTHREAD_COND_INITIALIZER;
static int blocking_pipe[2];

struct worker {
    char name[16];
    int blocked;
};

__attribute__((noinline)) static void axiom_probe_blocked_in_read(void) {
    char byte;
    pthread_barrier_wait(&workers_ready);
    while (read(blocking_pipe[0], &byte, 1) != 0) {  // crash-line: blocked-read
    }
}

__attribute__((noinline)) static void axiom_probe_waiting_worker(void) {
    pthread_barrier_wait(&workers_ready);
    pthread_mutex_lock(&workers_lock);
    for (;;) pthread_cond_wait(&workers_never, &workers_lock);
}

static void *worker_main(void *argument) {
    struct worker *worker = argument;
    pthread_setname_np(pthread_self(), worker->name);
    if (worker->blocked)
        axiom_probe_blocked_in_read();
    else
        axiom_probe_waiting_worker();
    return NULL;
}

void axiom_probe_start_workers(int count, int blocked) {
    static struct worker workers[64];
    if (count > 64) count = 64;
    if (pipe(blocking_pipe) != 0) return;
    pthread_barrier_init(&workers_ready, NULL, (unsigned)count + 1);
    for (int i = 0; i < count; i++) {
        struct worker *worker = &workers[i];
        worker->blocked = i < blocked;
        snprintf(worker->name, sizeof(worker->name), "%s-%d", worker->blocked ? "probe-read" : "probe-wait", i);
        pthread_t thread;
        pthread_create(&thread, NULL, worker_main, worker);
        pthread_detach(thread);
    }
    pthread_barrier_wait(&workers_ready);
    // Past the barrier every worker is in (or about to enter) its blocking call.
    struct timespec settle = {0, 20 * 1000 * 1000};
    nanosleep(&settle, NULL);
}

// --- A library opened after install, crashing inside it.

int axiom_probe_crash_in_late_library(void) {
    void *library = dlopen("libbz2.so.1.0", RTLD_NOW);
    if (!library) return -1;
    typedef int (*compress_fn)(char *, unsigned int *, char *, unsigned int, int, int, int);
    compress_fn compress = (compress_fn)dlsym(library, "BZ2_bzBuffToBuffCompress");
    if (!compress) return -2;
    static char source[4096] = "the crash happens inside libbz2, which was opened after install";
    unsigned int length = 1 << 20;
    // An output buffer at a bad address: libbz2 faults writing its output.
    return compress((char *)16, &length, source, sizeof(source), 9, 0, 0);  // crash-line: late-library
}

// --- A failed C assertion: glibc leaves its message in __abort_msg.

__attribute__((noinline)) void axiom_probe_assert(int value) {
    assert(value == 42 && "the probe's ledger is balanced");  // crash-line: assert
}

// --- A thread that blocks every signal: it cannot give its stack.

static void *deaf_main(void *argument) {
    (void)argument;
    pthread_setname_np(pthread_self(), "probe-deaf");
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_barrier_wait(&workers_ready);
    for (;;) pause();
    return NULL;
}

void axiom_probe_start_deaf_thread(void) {
    pthread_barrier_init(&workers_ready, NULL, 2);
    pthread_t thread;
    pthread_create(&thread, NULL, deaf_main, NULL);
    pthread_detach(thread);
    pthread_barrier_wait(&workers_ready);
}
