#ifndef AXIOM_PLUGIN_SCAN_H
#define AXIOM_PLUGIN_SCAN_H

/* The few GNU extensions the plugin host and its scanner need, which Swift's Glibc module does not show. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* secure_getenv(3): NULL in a set-user-ID, set-group-ID or capability-raised process. */
const char *axiom_plugin_secure_getenv(const char *name);

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so no other child inherits them. 0 or -1. */
int axiom_plugin_pipe_cloexec(int fds[2]);

/* Makes the calling process die (SIGKILL) when its parent does (prctl PR_SET_PDEATHSIG), then checks that
   its parent is still `parent`: 0, or -1 when the parent is already gone (or the call failed). */
int axiom_plugin_die_with_parent(long parent);

/* Where `address` is, as "symbol + offset" or "module + 0xoffset" (dladdr), into `out`; 0 when unknown. */
size_t axiom_plugin_describe_address(const void *address, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
