/*
 * SwiftPM needs one source file per C target. This one checks, at compile time, the layout rules
 * the header promises: the first two fields of the descriptor never move.
 */
#include "axiom_plugin.h"

_Static_assert(offsetof(axiom_plugin_descriptor, struct_size) == 0, "struct_size must stay first");
_Static_assert(offsetof(axiom_plugin_descriptor, abi_version) == 4, "abi_version must stay second");

/* Revision 2 appended its fields: the revision-1 fields keep their offsets (a plugin built against the revision-1
 * header, kept in Tests/PluginFixtures/abi-revision-1, is loaded by a test). */
_Static_assert(offsetof(axiom_plugin_code, http_status) > offsetof(axiom_plugin_code, sensitive),
               "http_status is appended after the revision-1 fields");
_Static_assert(offsetof(axiom_plugin_descriptor, code_size) >= offsetof(axiom_plugin_descriptor, catalog) +
                                                                    sizeof(axiom_plugin_catalog),
               "the element sizes are appended after the revision-1 descriptor");
