// The async callers of a Swift async function, for the stacks of non-fatal errors.
#ifndef AXIOM_ASYNC_STACK_H
#define AXIOM_ASYNC_STACK_H

#include <stdint.h>

/// Walks the async callers of an async function's frame: the first frame above `anchor` (the address of a local
/// variable of the function the async function called) must be a frame of a Swift async function (a partial
/// function that called down).
///
/// On x86_64 Linux such a frame, when it has a frame record, keeps its async context just below it, at
/// `rbp - 8`; each async context starts with its caller's context and the resume point in the caller (Swift's
/// `AsyncContext`: `Parent`, `ResumeParent`). The frame's rbp comes from libunwind (call-frame information, so
/// frames that omit the frame pointer on the way are no problem); the frame record is trusted only when its
/// return address is the one libunwind finds for the next frame, and the context chain only while its pointers
/// are aligned and non-null. A frame without a frame record is not walked (0 is returned): callers are lost,
/// nothing is guessed.
///
/// Stores the frame's own return address into `buffer[0]`, then each caller's resume point plus one (so that,
/// like a return address, it is looked up one byte back), innermost caller first, at most `capacity` addresses in
/// all. Returns how many were stored: 0 when the frame cannot be walked. Not async-signal-safe.
int axiom_crash_async_callers(uintptr_t anchor, uintptr_t *buffer, int capacity);

#endif
