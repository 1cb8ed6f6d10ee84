// See axiom_debuginfod_find_debuginfo in include/CAxiomDwarf.h. In C because libdebuginfod takes a C callback
// (the deadline check) and reads its servers, cache and timeout only from the environment, which needs a lock
// Swift code elsewhere in the process knows nothing about.
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "CAxiomDwarf.h"

// One query at a time: the environment variables set below must stay what this query asked for until
// libdebuginfod has read them.
static pthread_mutex_t query_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// libdebuginfod calls this from its transfer loop as it waits on its servers; a non-zero answer abandons the
// query. With DEBUGINFOD_TIMEOUT (connecting, and a transfer that stalls) it bounds the whole query, a slow
// trickle of bytes included, which DEBUGINFOD_TIMEOUT alone would not.
static int past_deadline(debuginfod_client *client, long done, long total) {
    (void)done;
    (void)total;
    const int64_t *deadline = debuginfod_get_user_data(client);
    return monotonic_ms() >= *deadline;
}

// setenv only when the value changes: replacing a variable's value leaves the old string alive (glibc never
// frees strings it handed out), so a concurrent getenv elsewhere sees the old or the new value.
static void set_variable(const char *name, const char *value) {
    if (value == NULL) return;
    const char *current = getenv(name);
    if (current == NULL || strcmp(current, value) != 0) setenv(name, value, 1);
}

int axiom_debuginfod_find_debuginfo(const unsigned char *buildID, int buildIDSize, const char *urls,
                                    const char *cachePath, int timeoutSeconds, char **pathOut) {
    *pathOut = NULL;
    if (timeoutSeconds < 1) timeoutSeconds = 1;
    pthread_mutex_lock(&query_lock);
    set_variable(DEBUGINFOD_URLS_ENV_VAR, urls);
    set_variable(DEBUGINFOD_CACHE_PATH_ENV_VAR, cachePath);
    // The library's own bound: connecting, and a transfer that stalls, give up after this many seconds.
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", timeoutSeconds);
    set_variable(DEBUGINFOD_TIMEOUT_ENV_VAR, timeout);
    int result = -ENOMEM;
    debuginfod_client *client = debuginfod_begin();
    if (client != NULL) {
        int64_t deadline = monotonic_ms() + (int64_t)timeoutSeconds * 1000;
        debuginfod_set_user_data(client, &deadline);
        debuginfod_set_progressfn(client, past_deadline);
        result = debuginfod_find_debuginfo(client, buildID, buildIDSize, pathOut);
        debuginfod_end(client);
    }
    pthread_mutex_unlock(&query_lock);
    if (result >= 0) {
        close(result);
        return 0;
    }
    return result;
}
