#define _GNU_SOURCE
#include <sys/prctl.h>
#include <signal.h>
#include <unistd.h>
#include "axiom_plugin_scan.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/auxv.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *axiom_plugin_secure_getenv(const char *name) { return secure_getenv(name); }

int axiom_plugin_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

size_t axiom_plugin_describe_address(const void *address, char *out, size_t size) {
    Dl_info info;
    if (size == 0 || dladdr(address, &info) == 0) return 0;
    int written = 0;
    if (info.dli_sname != NULL && info.dli_saddr != NULL) {
        written = snprintf(out, size, "%s + %zu", info.dli_sname,
                           (size_t)((const char *)address - (const char *)info.dli_saddr));
    } else if (info.dli_fname != NULL && info.dli_fbase != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        written = snprintf(out, size, "%s + 0x%zx", slash != NULL ? slash + 1 : info.dli_fname,
                           (size_t)((const char *)address - (const char *)info.dli_fbase));
    }
    if (written <= 0) return 0;
    return (size_t)written < size ? (size_t)written : size - 1;
}

int axiom_plugin_die_with_parent(long parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // The parent may have died between the spawn and the prctl: then no signal will come.
    return getppid() == (pid_t)parent ? 0 : -1;
}

int axiom_plugin_secure_execution(void) { return getauxval(AT_SECURE) != 0; }

int axiom_plugin_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
#else
    (void)actions;
    (void)lowest;
    return ENOSYS;
#endif
}
