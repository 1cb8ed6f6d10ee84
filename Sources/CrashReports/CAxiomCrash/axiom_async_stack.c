// See include/axiom_async_stack.h.
#define _GNU_SOURCE
#include "axiom_async_stack.h"

#include "axiom_crash.h"

#include <sys/uio.h>
#include <unistd.h>

/// Reads two words at `address` without trusting it: process_vm_readv on this process answers EFAULT for memory
/// that is not mapped, where a plain load would crash the process on an error it only meant to log. Where the
/// call is not allowed (a seccomp filter), the walk stops and the thread's own stack is used.
__attribute__((unused)) static int read_two_words(uintptr_t address, uintptr_t out[2]) {
    struct iovec local = {out, 2 * sizeof(uintptr_t)};
    struct iovec remote = {(void *)address, 2 * sizeof(uintptr_t)};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)(2 * sizeof(uintptr_t));
}

// The most a partial function's frame record may lie above its stack pointer: its locals are few (its state
// lives in the async context).
#define AXIOM_ASYNC_FRAME_LIMIT (64 * 1024)
// The most frames between this function and the anchor's: the capturer's, a thunk, the pipeline's.
#define AXIOM_ASYNC_STEP_LIMIT 16

__attribute__((noinline)) int axiom_crash_async_callers(uintptr_t anchor, uintptr_t *buffer, int capacity) {
#if defined(__x86_64__)
    if (anchor == 0 || capacity < 2) return 0;
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0) return 0;
    // A frame's stack pointer (at its call) lies below its locals: the first frame whose stack pointer is above the
    // anchor is the caller of the anchor's function.
    unw_word_t ip = 0, sp = 0, rbp = 0;
    // The anchor must be on this thread's stack, a little above this frame (not, say, on a sanitizer's fake stack).
    if (unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0 || anchor <= sp || anchor - sp > AXIOM_ASYNC_FRAME_LIMIT) return 0;
    for (int steps = 0;; steps++) {
        if (steps == AXIOM_ASYNC_STEP_LIMIT || unw_step(&cursor) <= 0) return 0;
        if (unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0) return 0;
        if (sp > anchor) break;
    }
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || unw_get_reg(&cursor, UNW_X86_64_RBP, &rbp) != 0) return 0;
    // A frame record lies above the stack pointer, 16-byte aligned (the prologue pushes rbp onto a stack that
    // was 16-byte aligned before the call pushed the return address).
    if (rbp <= sp || rbp - sp > AXIOM_ASYNC_FRAME_LIMIT || (rbp & 15) != 0) return 0;
    const uintptr_t *record = (const uintptr_t *)rbp;
    if (unw_step(&cursor) <= 0) return 0;
    unw_word_t next = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &next) != 0 || record[1] != (uintptr_t)next) return 0;
    uintptr_t asyncContext = record[-1];
    buffer[0] = (uintptr_t)ip;
    int count = 1;
    while (count < capacity && asyncContext != 0 && (asyncContext & 15) == 0) {
        // An async context: its caller's context, then the resume point in the caller.
        uintptr_t words[2];
        if (!read_two_words(asyncContext, words)) break;
        uintptr_t resume = words[1];
        if (resume == 0) break;
        buffer[count++] = resume + 1;
        asyncContext = words[0];
    }
    return count > 1 ? count : 0;
#else
    (void)anchor;
    (void)buffer;
    (void)capacity;
    return 0;
#endif
}
