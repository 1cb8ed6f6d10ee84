/*
 * SwiftPM needs one source file per C target. This one checks, at compile time, the layout rules
 * the header promises: the first two fields of the descriptor never move.
 */
#include "axiom_plugin.h"

_Static_assert(offsetof(axiom_plugin_descriptor, struct_size) == 0, "struct_size must stay first");
_Static_assert(offsetof(axiom_plugin_descriptor, abi_version) == 4, "abi_version must stay second");
