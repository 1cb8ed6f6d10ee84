/*
 * axiom_plugin.h: the Axiom plugin ABI, version 1.
 *
 * This header is the whole contract between an Axiom host and a plugin. A plugin is an ELF shared
 * object that exports one C function:
 *
 *     const axiom_plugin_descriptor *axiom_plugin_entry_v1(void);
 *
 * The host calls it once, right after dlopen. It returns a descriptor that the plugin owns and
 * keeps valid and unchanged for the life of the process (the host never calls dlclose): static
 * data, or memory built once and never freed. The host copies what it keeps. The function must
 * not throw, longjmp or abort; a plugin that cannot start returns a descriptor whose status is
 * AXIOM_PLUGIN_STATUS_FAILED with a message.
 *
 * Enumerations (category, severity, ...) travel as the lower-case strings listed below, so that a
 * host can name what it does not understand instead of misreading a number. A host refuses a
 * plugin that uses a value it does not know.
 *
 * How the header grows. Version 1 has revisions; each one only appends fields:
 *
 *   - The first two fields of axiom_plugin_descriptor never move.
 *   - A revision appends fields to the end of a struct and nowhere else. A field added later means
 *     "absent" when it is zero, so a plugin that zero-initializes its structs (C designated
 *     initializers, Swift's `axiom_plugin_code()`) only sets what it knows.
 *   - The descriptor says how large it is (struct_size), and from revision 2 on how large each element
 *     of its arrays is (code_size, locale_size, message_size). The host walks an array with the
 *     plugin's element size and reads only the fields that size covers, so an element that grew in a
 *     later revision does not shift the ones after it. A descriptor too short to hold code_size is a
 *     revision-1 descriptor: its codes end at `sensitive`.
 *   - A host accepts a plugin built against any revision of this version that it knows (each has its
 *     own AXIOM_PLUGIN_ABI_HASH) and refuses an unknown hash: an edited header, or a later revision
 *     than the host was built with.
 *   - Anything else (a field that moves, changes type or changes meaning) is a new entry symbol
 *     (axiom_plugin_entry_v2) and a new AXIOM_PLUGIN_ABI_VERSION.
 *
 * Revision 1: the first release. Revision 2: element sizes in the descriptor, http_status in
 * axiom_plugin_code.
 *
 * Nothing here needs Swift. Plain C99.
 */
#ifndef AXIOM_PLUGIN_H
#define AXIOM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. */
#define AXIOM_PLUGIN_ABI_VERSION 1u

/* The revision of version 1 this header describes: each revision only appends fields. */
#define AXIOM_PLUGIN_ABI_REVISION 2u

/*
 * FNV-1a 64-bit hash of this file's bytes with the line that defines AXIOM_PLUGIN_ABI_HASH left
 * out, as 16 lower-case hex digits. A plugin built against an edited header carries another hash
 * and is refused; the host knows the hash of every earlier revision too. A test recomputes it:
 * whoever edits this header updates it, and adds the old hash to the host's list of revisions.
 */
#define AXIOM_PLUGIN_ABI_HASH "2d581d23234dca26"

/* The name of the entry symbol, for dlsym. */
#define AXIOM_PLUGIN_ENTRY_SYMBOL "axiom_plugin_entry_v1"

/* axiom_plugin_descriptor.status */
#define AXIOM_PLUGIN_STATUS_OK 0
#define AXIOM_PLUGIN_STATUS_FAILED 1

/* axiom_plugin_fingerprint.language */
#define AXIOM_PLUGIN_LANGUAGE_C 1u
#define AXIOM_PLUGIN_LANGUAGE_SWIFT 2u

/* axiom_plugin_presentation.duration_ms: shown until the user dismisses it. */
#define AXIOM_PLUGIN_UNTIL_DISMISSED (-1)

/*
 * How the plugin was built. The host refuses a plugin whose abi_hash differs from its own. Swift
 * has no stable ABI on Linux, so for a Swift plugin the toolchain must also equal the host's
 * ("swift-6.3.1"); for a C plugin it is informational ("gcc 12.2.0", "clang 17.0.0").
 */
typedef struct axiom_plugin_fingerprint {
    const char *abi_hash;  /* AXIOM_PLUGIN_ABI_HASH as the plugin saw it */
    const char *toolchain; /* compiler that built the plugin */
    uint32_t language;     /* AXIOM_PLUGIN_LANGUAGE_* */
} axiom_plugin_fingerprint;

/* How an error may be retried. */
typedef struct axiom_plugin_retry {
    int32_t max_attempts;        /* total attempts, the first included; at least 1 */
    const char *backoff;         /* "constant" | "linear" | "exponential" */
    int64_t delay_ms;            /* wait before the first retry */
    int64_t max_delay_ms;        /* no wait is longer */
    uint8_t jitter;              /* 0 or 1: randomize each wait */
    uint8_t honors_retry_after;  /* 0 or 1: a Retry-After from the error replaces the delay */
} axiom_plugin_retry;

/* How an error is shown to the user. */
typedef struct axiom_plugin_presentation {
    const char *style;    /* "inline" | "toast" | "banner" | "modal" | "fullScreen" */
    int64_t duration_ms;  /* AXIOM_PLUGIN_UNTIL_DISMISSED, or milliseconds >= 0 */
    const char *feedback; /* "none" | "light" | "medium" | "error" */
} axiom_plugin_presentation;

/* One error code and everything the runtime decides about it. */
typedef struct axiom_plugin_code {
    const char *domain;             /* one of the catalog's domains */
    const char *code;               /* the code within the domain: "RATE_LIMITED" */
    const int64_t *numeric_aliases; /* numbers that name the same code in its domain; may be NULL */
    size_t numeric_alias_count;
    const char *category;   /* "validation" | "network" | "api" | "credit" | "auth" | "capability" |
                               "state" | "storage" | "configuration" | "cancellation" | "general" */
    const char *severity;   /* "debug" | "info" | "notice" | "warning" | "error" | "critical" */
    const char *disposition; /* "ignore" | "recover" | "escalate" | "default" */
    const axiom_plugin_retry *retry; /* NULL: never retried */
    const char *message_key;  /* NULL: "error.<category>.<code>"; its title is message_key + ".title" */
    const char *recovery_key; /* NULL: no recovery action */
    const axiom_plugin_presentation *presentation; /* NULL: the category's default */
    const char *escalation_domain; /* with escalation_code: what an escalation becomes; NULL: none */
    const char *escalation_code;
    uint8_t sensitive; /* 0 or 1: the payload may hold secrets and is never logged verbatim */
    /* Revision 2. */
    int32_t http_status; /* 0: the category's default; else the status a server answers with, 400...599 */
} axiom_plugin_code;

/* One localized text. */
typedef struct axiom_plugin_message {
    const char *key;
    const char *text; /* UTF-8 */
} axiom_plugin_message;

/* The texts of one locale ("en", "tr"). */
typedef struct axiom_plugin_locale {
    const char *locale;
    const axiom_plugin_message *messages;
    size_t message_count;
} axiom_plugin_locale;

/* The catalog as plain data. */
typedef struct axiom_plugin_catalog {
    const char *const *domains;
    size_t domain_count;
    const axiom_plugin_code *codes;
    size_t code_count;
    const axiom_plugin_locale *locales;
    size_t locale_count;
} axiom_plugin_catalog;

/* What axiom_plugin_entry_v1 returns. */
typedef struct axiom_plugin_descriptor {
    uint32_t struct_size; /* sizeof(axiom_plugin_descriptor) as the plugin was built; never moves */
    uint32_t abi_version; /* AXIOM_PLUGIN_ABI_VERSION; never moves */
    axiom_plugin_fingerprint fingerprint;
    const char *id;      /* reverse-DNS: "org.example.payments" */
    const char *version; /* the plugin's own version: "1.2.0" */
    int32_t status;      /* AXIOM_PLUGIN_STATUS_* */
    const char *status_message; /* why init failed; may be NULL when status is OK */
    axiom_plugin_catalog catalog;
    /* Revision 2: the size of one element of each array, as the plugin was built
     * (AXIOM_PLUGIN_ELEMENT_SIZES). Zero: the sizes of the header whose hash the plugin carries. */
    uint32_t code_size;    /* sizeof(axiom_plugin_code): the stride of catalog.codes */
    uint32_t locale_size;  /* sizeof(axiom_plugin_locale): the stride of catalog.locales */
    uint32_t message_size; /* sizeof(axiom_plugin_message): the stride of each locale's messages */
} axiom_plugin_descriptor;

/*
 * Revision 2: the element sizes of a descriptor built against this header, for a designated
 * initializer: `axiom_plugin_descriptor d = {..., AXIOM_PLUGIN_ELEMENT_SIZES};`
 */
#define AXIOM_PLUGIN_ELEMENT_SIZES                                                                  \
    .code_size = sizeof(axiom_plugin_code), .locale_size = sizeof(axiom_plugin_locale),            \
    .message_size = sizeof(axiom_plugin_message)

/* The entry point's type, for a host that looks it up with dlsym. */
typedef const axiom_plugin_descriptor *(*axiom_plugin_entry_v1_fn)(void);

/* Declared here so that a C plugin's definition is checked against the contract. */
const axiom_plugin_descriptor *axiom_plugin_entry_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* AXIOM_PLUGIN_H */
