// Ways to crash, for the crash-reporter tests' child process. Each crashes inside the
// named function itself, so a test can check that the report's first frame lies in it.
#ifndef AXIOM_CRASH_PROBE_H
#define AXIOM_CRASH_PROBE_H

/// Turns core dumps off, so crashing children stay fast.
void axiom_probe_disable_core_dumps(void);
/// SIGSEGV: stores through a null pointer.
void axiom_probe_null_write(void);
/// SIGFPE: integer division by zero.
int axiom_probe_divide_by_zero(void);
/// SIGBUS: reads a mapped page of `path` after truncating the file under it.
int axiom_probe_bus_error(const char *path);
/// SIGILL on x86_64: __builtin_trap (ud2).
void axiom_probe_trap(void);
/// SIGTRAP: __builtin_debugtrap (int3); the pc is already past it, so the signal
/// does not recur by itself when the handler returns.
void axiom_probe_breakpoint(void);
/// SIGABRT: abort().
void axiom_probe_abort(void);
/// SIGSEGV: unbounded recursion until the stack's guard page.
int axiom_probe_recurse(int depth);
/// Runs `body` on a new thread named `name` and waits for it.
void axiom_probe_run_on_thread(const char *name, void (*body)(void));
/// Two threads that both store through a null pointer at the same moment.
void axiom_probe_two_threads_crash(void);
/// The function both threads of axiom_probe_two_threads_crash crash in.
void axiom_probe_thread_crash(void);
/// Starts `count` named threads (`probe-read-N` blocked in read(2) for the first `blocked`,
/// `probe-wait-N` in pthread_cond_wait for the others) and returns once all are waiting.
void axiom_probe_start_workers(int count, int blocked);
/// dlopens libbz2 and crashes inside it (a bad output buffer). Returns only on failure.
int axiom_probe_crash_in_late_library(void);
/// Starts `probe-deaf`, a thread that blocks every signal, and returns once it runs.
void axiom_probe_start_deaf_thread(void);
/// Fails a C assert with a message.
void axiom_probe_assert(int value);

#endif
