// Test fixtures for AxiomSymbolication: C code with known inlining and known line numbers.
#ifndef CAXIOM_SYMBOLICATION_FIXTURES_H
#define CAXIOM_SYMBOLICATION_FIXTURES_H

#include <stdint.h>

/// Source lines recorded by the fixture while it runs (from __LINE__), so tests need no hard-coded numbers.
struct axiom_fixture_lines {
    int innermost_call;  // the call inside the innermost inlined function
    int inner_call;      // where `inner` calls the inlined `innermost`
    int outer_call;      // where `axiom_fixture_outer` calls the inlined `inner`
};

/// Never inlined; returns its own return address, i.e. an address inside the caller.
uintptr_t axiom_fixture_return_address(void);

/// A physical function that inlines `inner`, which inlines `innermost`, which calls
/// `axiom_fixture_return_address`. Returns that return address (inside two levels of inlined code).
uintptr_t axiom_fixture_outer(struct axiom_fixture_lines *lines);

/// The address of a plain (non-inlined) C function, and the line of its first statement.
uintptr_t axiom_fixture_plain_function_address(int *line);

#endif
