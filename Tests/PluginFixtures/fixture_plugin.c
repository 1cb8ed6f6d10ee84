/*
 * A configurable plugin for the loader's tests and benchmarks, compiled with `cc -shared` into a temporary
 * directory. Each -D option bends one part of the contract:
 *
 *   FIXTURE_ID="x.y"          plugin id                      (default "test.fixture")
 *   FIXTURE_DOMAIN="d"        first domain                   (default "fixture")
 *   FIXTURE_DOMAIN2="e"       a second domain; codes alternate between the two
 *   FIXTURE_CODES=n           number of codes, named E000…  (default 3)
 *   FIXTURE_ABI_VERSION=n     ABI version reported            (default AXIOM_PLUGIN_ABI_VERSION)
 *   FIXTURE_ABI_HASH="h"      ABI header hash reported        (default AXIOM_PLUGIN_ABI_HASH)
 *   FIXTURE_CATEGORY="c"      category of every code          (default "general")
 *   FIXTURE_FAIL_INIT         report a failed init with a message
 *   FIXTURE_NO_MESSAGES       ship no English texts for the codes' message keys
 *   FIXTURE_NO_ENTRY          export no entry symbol at all
 *   FIXTURE_HTTP_STATUS=n     HTTP status of every code       (default 0: the category's; revision 2 headers)
 *   FIXTURE_DIRTY_PADDING     fill every code's bytes after its last field with 0xAB (what a later revision's
 *                             host must not read as a field)
 *   FIXTURE_KEY_DOMAIN="d"    the domain the message keys are under (default the code's own domain)
 *   FIXTURE_NULL_MESSAGE_KEY  every code's message_key is NULL, and its texts are under the key the header gives
 *                             NULL: "error.<category>.<code>"
 *   FIXTURE_EXTRA_KEY="k"     ship one more English text, under key k (a text for someone else's key)
 *   FIXTURE_CRASH             the entry writes through a null pointer (SIGSEGV)
 *   FIXTURE_HANG              the entry never returns
 *   FIXTURE_EXIT              the entry calls exit(0)
 *   FIXTURE_CLOSED_FD=n       the entry returns NULL when descriptor n is open in its process
 *
 * It compiles against the current header and against the revision-1 header kept in abi-revision-1/, so that
 * the host is tested with plugins of both revisions.
 *
 * The catalog is built on the first call and never freed, as the ABI requires.
 */
#include "axiom_plugin.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef FIXTURE_CLOSED_FD
#include <fcntl.h>
#endif

#ifndef FIXTURE_ID
#define FIXTURE_ID "test.fixture"
#endif
#ifndef FIXTURE_DOMAIN
#define FIXTURE_DOMAIN "fixture"
#endif
#ifndef FIXTURE_CODES
#define FIXTURE_CODES 3
#endif
#ifndef FIXTURE_ABI_VERSION
#define FIXTURE_ABI_VERSION AXIOM_PLUGIN_ABI_VERSION
#endif
#ifndef FIXTURE_ABI_HASH
#define FIXTURE_ABI_HASH AXIOM_PLUGIN_ABI_HASH
#endif
#ifndef FIXTURE_CATEGORY
#define FIXTURE_CATEGORY "general"
#endif
#ifndef FIXTURE_HTTP_STATUS
#define FIXTURE_HTTP_STATUS 0
#endif

#ifdef FIXTURE_NO_ENTRY

/* An ordinary shared library: something to export, but not the entry. */
int fixture_not_a_plugin(void) { return 42; }

#else

#ifdef FIXTURE_DOMAIN2
static const char *const domains[] = {FIXTURE_DOMAIN, FIXTURE_DOMAIN2};
#else
static const char *const domains[] = {FIXTURE_DOMAIN};
#endif

static axiom_plugin_code codes[FIXTURE_CODES];
static int64_t aliases[FIXTURE_CODES];
static axiom_plugin_message english[FIXTURE_CODES * 2 + 1];
static axiom_plugin_locale locales[1];
static const axiom_plugin_retry retry = {
    .max_attempts = 3, .backoff = "exponential", .delay_ms = 100, .max_delay_ms = 1000,
    .jitter = 0, .honors_retry_after = 1};
static axiom_plugin_descriptor descriptor;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static char *format(const char *pattern, int number) {
    char buffer[96];
    snprintf(buffer, sizeof buffer, pattern, number);
    return strdup(buffer);
}

static void build(void) {
    size_t domain_count = sizeof(domains) / sizeof(domains[0]);
    for (int i = 0; i < FIXTURE_CODES; i++) {
        const char *domain = domains[i % domain_count];
        char key[160];
#if defined(FIXTURE_NULL_MESSAGE_KEY)
        snprintf(key, sizeof key, "error.%s.E%03d", FIXTURE_CATEGORY, i);
#elif defined(FIXTURE_KEY_DOMAIN)
        snprintf(key, sizeof key, "error.%s.E%03d", FIXTURE_KEY_DOMAIN, i);
#else
        snprintf(key, sizeof key, "error.%s.E%03d", domain, i);
#endif
        aliases[i] = 1000 + i;
        codes[i] = (axiom_plugin_code){
            .domain = domain, .code = format("E%03d", i), .numeric_aliases = &aliases[i],
            .numeric_alias_count = 1, .category = FIXTURE_CATEGORY, .severity = "error",
            .disposition = i % 2 ? "recover" : "default", .retry = i % 2 ? &retry : NULL,
#ifdef FIXTURE_NULL_MESSAGE_KEY
            .message_key = NULL,
#else
            .message_key = strdup(key),
#endif
            .sensitive = 0,
#ifdef AXIOM_PLUGIN_ABI_REVISION
            .http_status = FIXTURE_HTTP_STATUS,
#endif
        };
        english[2 * i] = (axiom_plugin_message){.key = strdup(key), .text = format("Fixture error %d.", i)};
        strcat(key, ".title");
        english[2 * i + 1] = (axiom_plugin_message){.key = strdup(key), .text = format("Fixture %d", i)};
    }
#ifdef FIXTURE_DIRTY_PADDING
    for (int i = 0; i < FIXTURE_CODES; i++) {
        size_t end = offsetof(axiom_plugin_code, sensitive) + 1;
#ifdef AXIOM_PLUGIN_ABI_REVISION
        end = offsetof(axiom_plugin_code, http_status) + sizeof(codes[i].http_status);
#endif
        memset((char *)&codes[i] + end, 0xAB, sizeof(axiom_plugin_code) - end);
    }
#endif
#ifdef FIXTURE_NO_MESSAGES
    locales[0] = (axiom_plugin_locale){.locale = "en", .messages = english, .message_count = 0};
#elif defined(FIXTURE_EXTRA_KEY)
    english[FIXTURE_CODES * 2] = (axiom_plugin_message){.key = FIXTURE_EXTRA_KEY, .text = "Hijacked."};
    locales[0] = (axiom_plugin_locale){.locale = "en", .messages = english, .message_count = FIXTURE_CODES * 2 + 1};
#else
    locales[0] = (axiom_plugin_locale){.locale = "en", .messages = english, .message_count = FIXTURE_CODES * 2};
#endif
    descriptor = (axiom_plugin_descriptor){
        .struct_size = sizeof(axiom_plugin_descriptor),
        .abi_version = FIXTURE_ABI_VERSION,
        .fingerprint = {.abi_hash = FIXTURE_ABI_HASH, .toolchain = "C fixture", .language = AXIOM_PLUGIN_LANGUAGE_C},
        .id = FIXTURE_ID,
        .version = "0.0.1",
#ifdef FIXTURE_FAIL_INIT
        .status = AXIOM_PLUGIN_STATUS_FAILED,
        .status_message = "fixture cannot start: its configuration file is missing",
#else
        .status = AXIOM_PLUGIN_STATUS_OK,
#endif
        .catalog = {.domains = domains, .domain_count = domain_count, .codes = codes,
                    .code_count = FIXTURE_CODES, .locales = locales, .locale_count = 1},
#ifdef AXIOM_PLUGIN_ABI_REVISION
        AXIOM_PLUGIN_ELEMENT_SIZES,
#endif
    };
}

const axiom_plugin_descriptor *axiom_plugin_entry_v1(void) {
#ifdef FIXTURE_CRASH
    *(volatile int *)NULL = 1;
#endif
#ifdef FIXTURE_HANG
    for (volatile int spin = 0;; spin++) {
    }
#endif
#ifdef FIXTURE_EXIT
    exit(0);
#endif
#ifdef FIXTURE_CLOSED_FD
    if (fcntl(FIXTURE_CLOSED_FD, F_GETFD) != -1) return NULL;
#endif
    pthread_once(&once, build);
    return &descriptor;
}

#endif
