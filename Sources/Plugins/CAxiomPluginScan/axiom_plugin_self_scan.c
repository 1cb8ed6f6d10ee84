#define _GNU_SOURCE
#include "axiom_plugin_scan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PluginScanner's body, defined in Swift (AxiomPlugins, `@_cdecl`): the scan of the plugin open on descriptor 3,
   its verdict to descriptor 4, then _exit. Never returns. */
extern void axiom_plugin_scanner_run(long host);

/* Makes every executable that links AxiomPlugins its own plugin scanner. The host starts itself (/proc/self/exe)
   with argv { path, AXIOM_PLUGIN_SCAN_MARKER, host pid } and the scanner's descriptors (the plugin file on 3, the
   verdict pipe on 4); glibc passes main's arguments to the constructors in .init_array, so this one sees the
   marker before main and runs the scan there: the application's main never runs in the scanner. Without the
   marker it does nothing.

   It runs after the Swift runtime's registration of the executable's metadata (swiftrt.o's constructor, which
   the Swift driver links ahead of every object), and after the constructors of the libraries the executable
   loads. A process started with the marker never reaches main: when the marker cannot be honoured (a
   set-user-ID or capability-raised process, where the arguments and descriptors come from someone less
   privileged; descriptors that are not a regular file and a pipe; a pid that is not a number) it exits with
   status 2, which the host reads as a plugin that exited. */
__attribute__((constructor)) static void axiom_plugin_self_scan(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc != 3 || argv == NULL || argv[1] == NULL || strcmp(argv[1], AXIOM_PLUGIN_SCAN_MARKER) != 0) return;
    if (axiom_plugin_secure_execution()) _exit(2);
    struct stat file, verdict;
    if (fstat(3, &file) != 0 || !S_ISREG(file.st_mode) || fstat(4, &verdict) != 0 || !S_ISFIFO(verdict.st_mode))
        _exit(2);
    char *end = NULL;
    errno = 0;
    long host = strtol(argv[2], &end, 10);
    if (errno != 0 || end == argv[2] || *end != '\0' || host <= 0) _exit(2);
    axiom_plugin_scanner_run(host);
    _exit(2);
}
