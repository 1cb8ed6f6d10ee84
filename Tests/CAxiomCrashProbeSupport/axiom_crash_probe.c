#define _GNU_SOURCE
#include "axiom_crash_probe.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
