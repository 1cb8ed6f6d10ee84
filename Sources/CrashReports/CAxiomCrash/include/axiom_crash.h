// The capture side of the crash reporter: a fatal-signal handler that unwinds with
// libunwind and writes a raw report (see axiom_crash_format.h), and a fast non-fatal
// stack capture. Swift calls these through AxiomCrash; nothing else should.
#ifndef AXIOM_CRASH_H
#define AXIOM_CRASH_H

// Local unwinding only: the `unw_*` names then map to the `_UL*` symbols of
// libunwind.so. libunwind's own <unwind.h> is never included here (it clashes with
// clang's).
#ifndef UNW_LOCAL_ONLY
#define UNW_LOCAL_ONLY
#endif
#include <libunwind.h>

#include <stddef.h>
#include <stdint.h>

#include "axiom_crash_format.h"

/// Results of axiom_crash_install. Negative values are errors; `errno` says more.
enum {
    AXIOM_CRASH_INSTALLED = 0,
    /// A previous call installed the reporter; this call changed nothing.
    AXIOM_CRASH_ALREADY_INSTALLED = 1,
    AXIOM_CRASH_ERROR_DIRECTORY = -1,
    AXIOM_CRASH_ERROR_ALTERNATE_STACK = -2,
    AXIOM_CRASH_ERROR_SIGACTION = -3,
    AXIOM_CRASH_ERROR_MEMORY = -4,
};

/// Installs the fatal-signal handlers once per process. `directory` must exist; it is
/// opened now and kept open, so the handler never resolves a path. Also gives the
/// calling thread an alternate signal stack, snapshots loaded modules and warms up
/// libunwind. A second call returns AXIOM_CRASH_ALREADY_INSTALLED and changes nothing.
int axiom_crash_install(const char *directory);

/// Gives the calling thread an alternate signal stack of at least
/// AXIOM_CRASH_ALTERNATE_STACK_SIZE bytes (unless it already has one that large), so a
/// stack overflow on this thread can still be reported. The stack is released when the
/// thread exits. Returns 0, or -1 with errno set.
int axiom_crash_prepare_thread(void);

/// Records the version of Axiom that installs the reporter, for every report's header (at most
/// AXIOM_CRASH_AXIOM_VERSION_LENGTH - 1 bytes are kept). Call it before axiom_crash_install; once
/// the reporter is installed it changes nothing, so the handler never reads a version being written.
void axiom_crash_set_axiom_version(const char *version);

/// Non-zero: once a report is written, the process dies by its signal at once, and the
/// handlers installed before install (the Swift runtime's backtracer among them) do not run.
/// Zero (the default): they run next. Async-signal-safe to read; set it before a crash.
void axiom_crash_set_dies_at_once(int value);

/// Non-zero when threads created after install get an alternate signal stack by themselves
/// (pthread_create is interposed: with the package's ThreadWrapper trait, and not in
/// sanitizer builds).
int axiom_crash_prepares_new_threads(void);

/// Re-reads the loaded modules (after dlopen) for future reports. Returns 0, or -1.
int axiom_crash_refresh_modules(void);

/// Non-zero once axiom_crash_install succeeded.
int axiom_crash_is_installed(void);

#define AXIOM_CRASH_ALTERNATE_STACK_SIZE (64 * 1024)

/// How another thread's answer to the crashed thread's request for its stack goes, one
/// `int` per thread: the crashed thread sets REQUESTED and sends the signal; from then on only
/// the four calls below change it (atomically, async-signal-safe). The thread asked begins (to
/// RUNNING), unwinds, and finishes (to DONE); the crashed thread closes a slot whose thread
/// cannot be asked or has not begun by the first deadline, and at the last settles every slot.
/// A settled slot never changes again, so the report's plan of its length and its writing read
/// the same answer. The handler uses them; its tests call them directly, since a thread that
/// answers after the deadline cannot be made to on demand.
enum {
    AXIOM_CRASH_ANSWER_IDLE,
    AXIOM_CRASH_ANSWER_REQUESTED,
    AXIOM_CRASH_ANSWER_RUNNING,
    AXIOM_CRASH_ANSWER_DONE,
    AXIOM_CRASH_ANSWER_ABANDONED,
};

/// The thread asked, on the signal: REQUESTED to RUNNING. Zero when the slot was not
/// requested (abandoned already): the thread then unwinds nothing.
int axiom_crash_answer_begin(int *state);

/// The thread asked, its stack written: RUNNING to DONE. Zero when the crashed thread settled
/// the slot meanwhile (it abandoned it): the slot stays ABANDONED and is not read.
int axiom_crash_answer_finish(int *state);

/// The crashed thread, for a thread it cannot ask or that has not begun by the first deadline:
/// REQUESTED to ABANDONED, so that the thread never begins. A slot already RUNNING is left running.
void axiom_crash_answer_close(int *state);

/// The crashed thread, at its last deadline: a slot still REQUESTED or RUNNING becomes ABANDONED.
/// Returns the slot's final state, DONE or ABANDONED (or IDLE for a slot never requested).
int axiom_crash_answer_settle(int *state);

/// Captures the calling thread's return addresses with libunwind's fast path (its
/// per-thread cache, no unw_step loop). Returns the number stored, at most `capacity`.
/// The first is the return address of this call, inside the calling function:
/// unw_backtrace leaves out its own frame (libunwind 1.6.2), and this wrapper is always
/// inlined (also in debug builds), so it adds none either. Not async-signal-safe on first use per thread.
static inline __attribute__((always_inline)) int axiom_crash_backtrace(uintptr_t *buffer, int capacity) {
    _Static_assert(sizeof(uintptr_t) == sizeof(void *), "addresses are pointers");
    return unw_backtrace((void **)buffer, capacity);
}

#endif
