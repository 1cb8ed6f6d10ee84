// See axiom_debuginfod_find_debuginfo in include/CAxiomDwarf.h. In C because libdebuginfod takes a C callback
// (the deadline check) and reads its servers, cache and timeout only from the environment, which needs a lock
// Swift code elsewhere in the process knows nothing about.
//
// libdebuginfod is opened with dlopen on the first query, not linked: it brings libcurl and its TLS, Kerberos and
// LDAP libraries, about thirty shared objects, and a program that links them pays their loading and symbol binding
// at every start (about half of a small program's start-up), though most never ask a debuginfod server.
#include <dlfcn.h>
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

// The library's functions this file calls, found by dlsym once (`load_once`); all NULL when it could not be
// opened, and every query then answers -ELIBACC.
static struct {
    debuginfod_client *(*begin)(void);
    void (*end)(debuginfod_client *);
    int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
    void (*set_user_data)(debuginfod_client *, void *);
    void *(*get_user_data)(debuginfod_client *);
    void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
} library;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_library(void) {
    // RTLD_LOCAL: its symbols (and libcurl's) stay out of the process's global scope. Never closed: a handle
    // closed while another thread's query runs would unmap its code.
    void *handle = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    library.begin = (debuginfod_client * (*)(void)) dlsym(handle, "debuginfod_begin");
    library.end = (void (*)(debuginfod_client *))dlsym(handle, "debuginfod_end");
    library.find_debuginfo =
        (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(handle, "debuginfod_find_debuginfo");
    library.set_user_data = (void (*)(debuginfod_client *, void *))dlsym(handle, "debuginfod_set_user_data");
    library.get_user_data = (void *(*)(debuginfod_client *))dlsym(handle, "debuginfod_get_user_data");
    library.set_progressfn =
        (void (*)(debuginfod_client *, debuginfod_progressfn_t))dlsym(handle, "debuginfod_set_progressfn");
    if (!library.begin || !library.end || !library.find_debuginfo || !library.set_user_data ||
        !library.get_user_data || !library.set_progressfn) {
        memset(&library, 0, sizeof library);
    }
}

int axiom_debuginfod_available(void) {
    pthread_once(&load_once, load_library);
    return library.begin != NULL;
}

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
    const int64_t *deadline = library.get_user_data(client);
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
    if (!axiom_debuginfod_available()) return -ELIBACC;
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
    debuginfod_client *client = library.begin();
    if (client != NULL) {
        int64_t deadline = monotonic_ms() + (int64_t)deadlineSeconds * 1000;
        library.set_user_data(client, &deadline);
        library.set_progressfn(client, past_deadline);
        result = library.find_debuginfo(client, buildID, buildIDSize, pathOut);
        library.end(client);
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
