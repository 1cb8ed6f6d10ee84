#ifndef AXIOM_PLUGIN_SCAN_H
#define AXIOM_PLUGIN_SCAN_H

/* The few GNU extensions the plugin host and its scanner need, which Swift's Glibc module does not show, and the
   constructor that makes any executable linking AxiomPlugins a plugin scanner when started as one. */

#include <spawn.h>
#include <stddef.h>

/* argv[1] of a host's own executable started as its plugin scanner; argv[2] is the host's pid. A constructor of
   this library (see axiom_plugin_self_scan.c) sees it before main, runs the scan and exits, so the application's
   main never runs in the scanner. */
#define AXIOM_PLUGIN_SCAN_MARKER "--axiom-plugin-scan"

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

/* Whether the process runs with AT_SECURE (set-user-ID, set-group-ID or raised capabilities): such a process is
   never its own scanner. */
int axiom_plugin_secure_execution(void);

/* Adds to `actions` the closing of every descriptor from `lowest` up (posix_spawn_file_actions_addclosefrom_np,
   glibc 2.34): 0, or an error number (ENOSYS when this glibc has none). */
int axiom_plugin_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/* Where `address` is, as "symbol + offset" or "module + 0xoffset" (dladdr), into `out`; 0 when unknown. */
size_t axiom_plugin_describe_address(const void *address, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
