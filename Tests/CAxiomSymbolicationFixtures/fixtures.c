// See include/CAxiomSymbolicationFixtures.h. always_inline is honoured even at -O0, so debug builds
// carry DW_TAG_inlined_subroutine entries for `inner` and `innermost`. `axiom_fixture_outer` must make a
// real call, not a tail call (which an optimized build would make): its frame is the one under test.
#include "CAxiomSymbolicationFixtures.h"

__attribute__((noinline)) uintptr_t axiom_fixture_return_address(void) {
    return (uintptr_t)__builtin_return_address(0);
}

static inline __attribute__((always_inline)) uintptr_t innermost(struct axiom_fixture_lines *lines) {
    lines->innermost_call = __LINE__ + 1;
    uintptr_t address = axiom_fixture_return_address();
    return address;
}

static inline __attribute__((always_inline)) uintptr_t inner(struct axiom_fixture_lines *lines) {
    lines->inner_call = __LINE__ + 1;
    uintptr_t address = innermost(lines);
    return address;
}

__attribute__((noinline, disable_tail_calls)) uintptr_t axiom_fixture_outer(struct axiom_fixture_lines *lines) {
    lines->outer_call = __LINE__ + 1;
    uintptr_t address = inner(lines);
    return address;
}

static const int plain_function_return_line = __LINE__ + 2;
static __attribute__((noinline)) int plain_function(int value) {
    return value * 7 + 1;
}

uintptr_t axiom_fixture_plain_function_address(int *line) {
    *line = plain_function_return_line;
    (void)plain_function(1);
    return (uintptr_t)&plain_function;
}
