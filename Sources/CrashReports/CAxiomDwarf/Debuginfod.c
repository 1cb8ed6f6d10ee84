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

// libdebuginfod reads DEBUGINFOD_URLS, _CACHE_PATH and _TIMEOUT while a query runs, so they must stay what every
// running query asked for. Queries that ask for the values the environment holds run together; one that asks for
// others waits until none runs, and only then are the variables written. `active` counts the running queries and
// `waiting` the ones waiting for different values: while one waits, a newcomer waits too, so a stream of queries
// with the current values cannot hold a query with other values off for ever.
static pthread_mutex_t query_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t query_ended = PTHREAD_COND_INITIALIZER;
static int active = 0;
static int waiting = 0;

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

// Whether the environment already holds `value` (NULL: whatever it holds).
static int holds(const char *name, const char *value) {
    if (value == NULL) return 1;
    const char *current = getenv(name);
    return current != NULL && strcmp(current, value) == 0;
}

int axiom_debuginfod_find_debuginfo(const unsigned char *buildID, int buildIDSize, const char *urls,
                                    const char *cachePath, int timeoutSeconds, int deadlineSeconds,
                                    char **pathOut) {
    *pathOut = NULL;
    if (timeoutSeconds < 1) timeoutSeconds = 1;
    if (deadlineSeconds < 1) deadlineSeconds = 1;
    if (deadlineSeconds > timeoutSeconds) deadlineSeconds = timeoutSeconds;
    // The library's own bound: connecting, and a transfer that stalls, give up after this many seconds.
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", timeoutSeconds);
    pthread_mutex_lock(&query_lock);
    int waited = 0;
    while (active > 0) {
        int same = holds(DEBUGINFOD_URLS_ENV_VAR, urls) && holds(DEBUGINFOD_CACHE_PATH_ENV_VAR, cachePath) &&
                   holds(DEBUGINFOD_TIMEOUT_ENV_VAR, timeout);
        if (same && (waited || waiting == 0)) break;
        if (!waited) {
            waited = 1;
            waiting += 1;
        }
        pthread_cond_wait(&query_ended, &query_lock);
    }
    if (waited) waiting -= 1;
    if (active == 0) {
        set_variable(DEBUGINFOD_URLS_ENV_VAR, urls);
        set_variable(DEBUGINFOD_CACHE_PATH_ENV_VAR, cachePath);
        set_variable(DEBUGINFOD_TIMEOUT_ENV_VAR, timeout);
    }
    active += 1;
    pthread_mutex_unlock(&query_lock);
    int result = -ENOMEM;
    debuginfod_client *client = debuginfod_begin();
    if (client != NULL) {
        int64_t deadline = monotonic_ms() + (int64_t)deadlineSeconds * 1000;
        debuginfod_set_user_data(client, &deadline);
        debuginfod_set_progressfn(client, past_deadline);
        result = debuginfod_find_debuginfo(client, buildID, buildIDSize, pathOut);
        debuginfod_end(client);
    }
    pthread_mutex_lock(&query_lock);
    active -= 1;
    if (active == 0) pthread_cond_broadcast(&query_ended);
    pthread_mutex_unlock(&query_lock);
    if (result >= 0) {
        close(result);
        return 0;
    }
    return result;
}
