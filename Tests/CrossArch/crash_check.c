// A C-level check of the crash reporter's capture, built for another architecture and run under
// qemu-user (scripts/check-aarch64): a forked child installs the reporter, starts two named threads (one
// blocked in read(2)), records three decided errors in the flight recorder and crashes with a null
// write; the parent checks that it died by SIGSEGV and reads the raw report byte by byte, from the
// layout in axiom_crash_format.h: header, the architecture's registers, frames that name the crashing
// function (dladdr), modules, thread records with names and stacks, the recent errors, the trailer.
#define _GNU_SOURCE
#include "axiom_crash.h"
#include "axiom_flight_recorder.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(condition, ...)                                          \
    do {                                                               \
        if (!(condition)) {                                            \
            failures++;                                                \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__);     \
            fprintf(stderr, __VA_ARGS__);                              \
            fprintf(stderr, "\n");                                     \
        }                                                              \
    } while (0)

static pthread_barrier_t ready;
static int blocking_pipe[2];

static void *reader(void *argument) {
    (void)argument;
    pthread_setname_np(pthread_self(), "check-read");
    pthread_barrier_wait(&ready);
    char byte;
    while (read(blocking_pipe[0], &byte, 1) != 0) {
    }
    return NULL;
}

static void *sleeper(void *argument) {
    (void)argument;
    pthread_setname_np(pthread_self(), "check-sleep");
    pthread_barrier_wait(&ready);
    for (;;) pause();
    return NULL;
}

__attribute__((noinline)) void crash_here(void) {
    volatile int *volatile pointer = NULL;
    *pointer = 42;
}

__attribute__((noinline)) void crash_after_setup(const char *directory) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    if (axiom_crash_install(directory) != AXIOM_CRASH_INSTALLED) {
        perror("install");
        _exit(3);
    }
    if (pipe(blocking_pipe) != 0) _exit(4);
    pthread_barrier_init(&ready, NULL, 3);
    pthread_t threads[2];
    pthread_create(&threads[0], NULL, reader, NULL);
    pthread_create(&threads[1], NULL, sleeper, NULL);
    pthread_barrier_wait(&ready);
    struct timespec settle = {0, 50 * 1000 * 1000};
    nanosleep(&settle, NULL);
    static const char *codes[] = {"check/DECLINED", "check/TIMED_OUT", "check/DECLINED"};
    for (int i = 0; i < 3; i++)
        axiom_flight_recorder_record_error((const uint8_t *)codes[i], strlen(codes[i]), (const uint8_t *)"client", 6,
                                           (const uint8_t *)"charge", 6, 1, AXIOM_RECENT_ERROR_HANDLED);
    crash_here();
}

static uint64_t u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static uint32_t u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint16_t u16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/// Whether `address` lies in `function`: libunwind's unwind tables give the start of the procedure holding it
/// (the check is a static, non-PIE executable, so the child's addresses are the parent's).
static int lies_in(uint64_t address, void (*function)(void)) {
    unw_proc_info_t info;
    if (unw_get_proc_info_by_ip(unw_local_addr_space, (unw_word_t)address, &info, NULL) != 0) return 0;
    return info.start_ip == (unw_word_t)(uintptr_t)function;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "crash") == 0) {
        crash_after_setup(argv[2]);
        return 5;
    }
    char directory[] = "/tmp/axiom-crash-check-XXXXXX";
    if (!mkdtemp(directory)) return 2;
    pid_t child = fork();
    if (child == 0) {
        crash_after_setup(directory);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "the child did not die by SIGSEGV (status %#x)", status);

    DIR *folder = opendir(directory);
    char path[512] = "";
    for (struct dirent *entry; folder && (entry = readdir(folder));) {
        size_t n = strlen(entry->d_name);
        if (n > 8 && strcmp(entry->d_name + n - 8, ".axcrash") == 0)
            snprintf(path, sizeof(path), "%s/%s", directory, entry->d_name);
    }
    if (folder) closedir(folder);
    CHECK(path[0], "no report in %s", directory);
    if (!path[0]) return 1;
    FILE *file = fopen(path, "rb");
    static uint8_t bytes[4 << 20];
    size_t size = file ? fread(bytes, 1, sizeof(bytes), file) : 0;
    if (file) fclose(file);

    CHECK(size >= AXIOM_CRASH_HEADER_LENGTH_V1 && memcmp(bytes, "AXCRASH", 8) == 0, "bad magic");
    CHECK(u16(bytes + 8) == AXIOM_CRASH_FORMAT_VERSION, "version %u", u16(bytes + 8));
    uint16_t header_length = u16(bytes + 10), architecture = u16(bytes + 12), register_count = u16(bytes + 14);
    uint32_t frame_count = u32(bytes + 16), module_count = u32(bytes + 20), module_length = u32(bytes + 24);
    uint32_t record_count = u32(bytes + 96), record_length = u32(bytes + 100);
    CHECK(u64(bytes + 32) == size, "total_length %llu, file %zu", (unsigned long long)u64(bytes + 32), size);
    CHECK((int32_t)u32(bytes + 40) == SIGSEGV, "signal %d", (int32_t)u32(bytes + 40));
    CHECK(u64(bytes + 48) == 0, "fault address %#llx", (unsigned long long)u64(bytes + 48));
#if defined(__aarch64__)
    CHECK(architecture == AXIOM_CRASH_ARCH_AARCH64, "architecture %u", architecture);
    CHECK(register_count == AXIOM_CRASH_AARCH64_REGISTER_COUNT, "register count %u", register_count);
    const int pc_index = 32, sp_index = 31;
#else
    CHECK(architecture == AXIOM_CRASH_ARCH_X86_64, "architecture %u", architecture);
    CHECK(register_count == AXIOM_CRASH_X86_64_REGISTER_COUNT, "register count %u", register_count);
    const int pc_index = 0, sp_index = 1;
#endif
    const uint8_t *registers = bytes + header_length;
    const uint8_t *frames = registers + register_count * 8;
    CHECK(frame_count >= 3, "%u frames", frame_count);
    CHECK(u64(registers + pc_index * 8) == u64(frames), "pc register is not the first frame");
    CHECK(u64(registers + sp_index * 8) != 0, "sp is zero");
    CHECK(lies_in(u64(frames), crash_here), "the first frame is not in crash_here");
    int found_caller = 0;
    for (uint32_t i = 1; i < frame_count; i++)
        if (lies_in(u64(frames + i * 8) - 1, (void (*)(void))crash_after_setup)) found_caller = 1;
    CHECK(found_caller, "no frame in crash_after_setup");

    const uint8_t *modules = frames + frame_count * 8;
    CHECK(module_count >= 1, "%u modules", module_count);
    uint16_t first_path_length = u16(modules + 26);
    const char *first_path = (const char *)modules + 28 + u16(modules + 24);
    CHECK(first_path_length > 0 && memmem(first_path, first_path_length, "crash-check", 11) != NULL,
          "the first module is not the executable: %.*s", first_path_length, first_path);
    CHECK(u16(modules + 24) >= 8, "the executable has no build-id");

    const uint8_t *record = modules + module_length;
    const uint8_t *records_end = record + record_length;
    int threads = 0, answered = 0, errors = 0, named = 0;
    for (uint32_t i = 0; i < record_count && record + 8 <= records_end; i++) {
        uint16_t type = u16(record);
        uint32_t length = u32(record + 4);
        const uint8_t *payload = record + 8;
        if (type == AXIOM_CRASH_RECORD_THREAD) {
            threads++;
            uint32_t flags = u32(payload + 4), count = u32(payload + 8);
            if (!(flags & AXIOM_CRASH_THREAD_NO_ANSWER) && count > 0) answered++;
            if (strncmp((const char *)payload + 16, "check-", 6) == 0) named++;
            int in_reader = 0;
            for (uint32_t f = 0; f < count; f++) {
                uint64_t address = u64(payload + 32 + f * 8) - (f ? 1 : 0);
                if (lies_in(address, (void (*)(void))reader) || lies_in(address, (void (*)(void))sleeper)) in_reader = 1;
            }
            CHECK(in_reader || count == 0, "thread %.16s: no frame in its function", (const char *)payload + 16);
        } else if (type == AXIOM_CRASH_RECORD_RECENT_ERROR) {
            errors++;
            CHECK(length == AXIOM_RECENT_ERROR_LENGTH, "recent error of %u bytes", length);
        }
        record = payload + length;
    }
    CHECK(record == records_end, "records do not fill their section");
    // Under qemu-user the emulator's own host thread is listed in /proc/self/task too: at least our two.
    CHECK(threads >= 2 && named == 2, "%d thread records, %d named check-*", threads, named);
    CHECK(answered >= 2, "%d of the 2 threads answered", answered);
    CHECK(errors == 3, "%d recent errors", errors);
    CHECK(memcmp(bytes + size - 8, "AXEND\0\0\0", 8) == 0, "no trailer");

    if (failures) return 1;
    printf("crash check: %s: report of %zu bytes: SIGSEGV, %u registers (pc = first frame), %u frames from "
           "crash_here through crash_after_setup, %u modules (executable first, with build-id), 2 other threads "
           "named and unwound, 3 recent errors, trailer\n",
           architecture == AXIOM_CRASH_ARCH_AARCH64 ? "aarch64" : "x86_64", size, register_count, frame_count,
           module_count);
    return 0;
}
