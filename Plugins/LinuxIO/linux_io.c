/*
 * linux.io: Linux I/O failures by errno name, written in plain C to show that the plugin boundary is
 * language-neutral. Each code's numeric alias is its errno value on Linux, so an error that arrives as
 * ("linux.io", "28") resolves like ("linux.io", "ENOSPC").
 *
 * Everything is static data: the descriptor and all it points at live as long as the process.
 */
#include "axiom_plugin.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static const char *const domains[] = {"linux.io"};

/* Aliases: errno values on Linux (asm-generic/errno-base.h, errno.h). */
static const int64_t enoent[] = {2}, eio[] = {5}, eagain[] = {11}, eacces[] = {13}, emfile[] = {24},
                     enospc[] = {28}, erofs[] = {30}, etimedout[] = {110}, econnrefused[] = {111};

static const axiom_plugin_retry transient = {
    .max_attempts = 3, .backoff = "exponential", .delay_ms = 100, .max_delay_ms = 2000,
    .jitter = 1, .honors_retry_after = 0};
static const axiom_plugin_retry reconnect = {
    .max_attempts = 4, .backoff = "exponential", .delay_ms = 500, .max_delay_ms = 8000,
    .jitter = 1, .honors_retry_after = 0};
static const axiom_plugin_presentation banner = {.style = "banner", .duration_ms = 4000, .feedback = "error"};
static const axiom_plugin_presentation modal = {
    .style = "modal", .duration_ms = AXIOM_PLUGIN_UNTIL_DISMISSED, .feedback = "error"};

/* status: the HTTP status a server answers with when the failure ends a request; 0 leaves the category's
 * default. A file the server cannot read is its own failure (500), not the client's 404 or 403. */
#define CODE(name, aliases, cat, sev, disp, retry_policy, shown, status)                                      \
    {.domain = "linux.io", .code = name, .numeric_aliases = aliases, .numeric_alias_count = COUNT(aliases), \
     .category = cat, .severity = sev, .disposition = disp, .retry = retry_policy,                       \
     .message_key = "error.linux.io." name, .recovery_key = "error.linux.io." name ".recovery",          \
     .presentation = shown, .http_status = status}

static const axiom_plugin_code codes[] = {
    CODE("ENOENT", enoent, "storage", "error", "default", NULL, &banner, 500),
    CODE("EIO", eio, "storage", "critical", "default", NULL, &modal, 500),
    CODE("EAGAIN", eagain, "storage", "warning", "recover", &transient, NULL, 503),
    CODE("EACCES", eacces, "storage", "error", "default", NULL, &modal, 500),
    CODE("EMFILE", emfile, "storage", "error", "recover", &transient, NULL, 503),
    CODE("ENOSPC", enospc, "storage", "critical", "default", NULL, &modal, 507),
    CODE("EROFS", erofs, "storage", "error", "default", NULL, &modal, 500),
    CODE("ETIMEDOUT", etimedout, "network", "warning", "recover", &reconnect, &banner, 504),
    CODE("ECONNREFUSED", econnrefused, "network", "error", "recover", &reconnect, &banner, 502),
};

#define TEXTS(name, title, message, recovery)                                                  \
    {"error.linux.io." name ".title", title}, {"error.linux.io." name, message},                \
    {"error.linux.io." name ".recovery", recovery}

static const axiom_plugin_message english[] = {
    TEXTS("ENOENT", "File Missing", "A file the app needs is not there.", "Reinstall"),
    TEXTS("EIO", "Storage Failure", "The disk reported a read or write failure.", "Check Disk"),
    TEXTS("EAGAIN", "Busy", "The resource is busy for a moment.", "Retry"),
    TEXTS("EACCES", "Access Denied", "The app is not allowed to open a file it needs.", "Check Permissions"),
    TEXTS("EMFILE", "Too Many Open Files", "The app has reached its limit of open files.", "Retry"),
    TEXTS("ENOSPC", "Disk Full", "There is no space left on the disk.", "Free Up Space"),
    TEXTS("EROFS", "Read-Only Storage", "The storage is mounted read-only.", "Check Storage"),
    TEXTS("ETIMEDOUT", "Timed Out", "The other side did not answer in time.", "Retry"),
    TEXTS("ECONNREFUSED", "Connection Refused", "Nothing is listening at the address.", "Retry"),
};

static const axiom_plugin_message turkish[] = {
    TEXTS("ENOENT", "Dosya Eksik", "Uygulamanın ihtiyaç duyduğu bir dosya yok.", "Yeniden Yükle"),
    TEXTS("EIO", "Depolama Hatası", "Disk bir okuma ya da yazma hatası bildirdi.", "Diski Kontrol Et"),
    TEXTS("EAGAIN", "Meşgul", "Kaynak kısa bir süre için meşgul.", "Yeniden Dene"),
    TEXTS("EACCES", "Erişim Reddedildi", "Uygulamanın gereken bir dosyayı açma izni yok.", "İzinleri Kontrol Et"),
    TEXTS("EMFILE", "Çok Fazla Açık Dosya", "Uygulama açık dosya sınırına ulaştı.", "Yeniden Dene"),
    TEXTS("ENOSPC", "Disk Dolu", "Diskte boş alan kalmadı.", "Yer Aç"),
    TEXTS("EROFS", "Salt Okunur Depolama", "Depolama salt okunur olarak bağlı.", "Depolamayı Kontrol Et"),
    TEXTS("ETIMEDOUT", "Zaman Aşımı", "Karşı taraf zamanında yanıt vermedi.", "Yeniden Dene"),
    TEXTS("ECONNREFUSED", "Bağlantı Reddedildi", "Bu adreste dinleyen bir hizmet yok.", "Yeniden Dene"),
};

static const axiom_plugin_locale locales[] = {
    {.locale = "en", .messages = english, .message_count = COUNT(english)},
    {.locale = "tr", .messages = turkish, .message_count = COUNT(turkish)},
};

#ifndef __VERSION__
#define __VERSION__ "unknown"
#endif

static const axiom_plugin_descriptor descriptor = {
    .struct_size = sizeof(axiom_plugin_descriptor),
    .abi_version = AXIOM_PLUGIN_ABI_VERSION,
    .fingerprint = {.abi_hash = AXIOM_PLUGIN_ABI_HASH, .toolchain = "C " __VERSION__,
                    .language = AXIOM_PLUGIN_LANGUAGE_C},
    .id = "dev.axiom.plugins.linux-io",
    .version = "1.0.0",
    .status = AXIOM_PLUGIN_STATUS_OK,
    .status_message = NULL,
    .catalog = {.domains = domains, .domain_count = COUNT(domains), .codes = codes, .code_count = COUNT(codes),
                .locales = locales, .locale_count = COUNT(locales)},
    AXIOM_PLUGIN_ELEMENT_SIZES,
};

const axiom_plugin_descriptor *axiom_plugin_entry_v1(void) { return &descriptor; }
