// Makes ThreadSanitizer see what Swift's `Mutex` orders when threads contend for it.
//
// On Linux, `Mutex.withLock` inlines its fast path (one compare-and-exchange, which ThreadSanitizer sees as an
// acquire or a release) into the caller, and calls three functions of libswiftSynchronization.so when the lock is
// held by another thread: `_lockSlow` (spins, then waits in the kernel with FUTEX_LOCK_PI), `_tryLockSlow` and
// `_unlockSlow` (FUTEX_UNLOCK_PI). That library is not instrumented, so a lock taken or given up there orders
// nothing for ThreadSanitizer, and two threads that took turns under the lock are reported as a data race (one
// such report named `DebuginfodProgress.tell`, whose four prefetch threads start together).
//
// Loaded with LD_PRELOAD into the sanitized test run and the processes it starts, this file puts itself in front of
// those three functions: it calls the real one, then tells ThreadSanitizer the lock's word was acquired, or tells it
// the word is released before giving the lock up. A race on data the lock does not guard is still reported. In a
// process without ThreadSanitizer (the test driver, a debuginfod server) it only forwards the calls.
//
// The functions use Swift's calling convention: the `_MutexHandle` (its futex word) is `self`, passed in the Swift
// context register, which clang's `swiftcall` and `swift_context` attributes name.
//
// Build: clang -O2 -shared -fPIC -o tsan-mutex.so Tests/Sanitizers/tsan-mutex.c -ldl

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SWIFTCALL __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

typedef SWIFTCALL void (*lock_slow_function)(uint32_t thread, void *SWIFT_SELF word);
typedef SWIFTCALL bool (*try_lock_slow_function)(void *SWIFT_SELF word);
typedef SWIFTCALL void (*unlock_slow_function)(void *SWIFT_SELF word);
typedef void (*annotation)(void *address);

static lock_slow_function real_lock_slow;
static try_lock_slow_function real_try_lock_slow;
static unlock_slow_function real_unlock_slow;
static annotation tsan_acquire;
static annotation tsan_release;

// Runs when the library is loaded, before any thread of the program exists. The real functions are found in the
// libraries loaded after this one; when libswiftSynchronization is loaded and one is missing, a Swift release has
// renamed it, and this file no longer stands in front of it: say so rather than let the false reports come back
// unexplained.
__attribute__((constructor)) static void find_functions(void) {
    real_lock_slow = (lock_slow_function)dlsym(RTLD_NEXT, LOCK_SLOW);
    real_try_lock_slow = (try_lock_slow_function)dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
    real_unlock_slow = (unlock_slow_function)dlsym(RTLD_NEXT, UNLOCK_SLOW);
    tsan_acquire = (annotation)dlsym(RTLD_DEFAULT, "__tsan_acquire");
    tsan_release = (annotation)dlsym(RTLD_DEFAULT, "__tsan_release");
    void *synchronization = dlopen("libswiftSynchronization.so", RTLD_LAZY | RTLD_NOLOAD);
    if (synchronization != NULL) {
        if (!real_lock_slow || !real_try_lock_slow || !real_unlock_slow) {
            fprintf(stderr, "tsan-mutex: libswiftSynchronization.so no longer has the Mutex functions this file "
                            "annotates; contended locks will be reported as races\n");
        }
        dlclose(synchronization);
    }
}

// A stand-in called without its real function would have been called by a library that was loaded later by dlopen
// and holds the real one; it is looked up then.
static void *real(void **slot, const char *name) {
    if (*slot == NULL) *slot = dlsym(RTLD_NEXT, name);
    if (*slot == NULL) {
        fprintf(stderr, "tsan-mutex: %s not found\n", name);
        abort();
    }
    return *slot;
}

SWIFTCALL void lock_slow(uint32_t thread, void *SWIFT_SELF word) __asm__(LOCK_SLOW);
SWIFTCALL void lock_slow(uint32_t thread, void *SWIFT_SELF word) {
    ((lock_slow_function)real((void **)&real_lock_slow, LOCK_SLOW))(thread, word);
    if (tsan_acquire) tsan_acquire(word);
}

SWIFTCALL bool try_lock_slow(void *SWIFT_SELF word) __asm__(TRY_LOCK_SLOW);
SWIFTCALL bool try_lock_slow(void *SWIFT_SELF word) {
    bool locked = ((try_lock_slow_function)real((void **)&real_try_lock_slow, TRY_LOCK_SLOW))(word);
    if (locked && tsan_acquire) tsan_acquire(word);
    return locked;
}

SWIFTCALL void unlock_slow(void *SWIFT_SELF word) __asm__(UNLOCK_SLOW);
SWIFTCALL void unlock_slow(void *SWIFT_SELF word) {
    if (tsan_release) tsan_release(word);
    ((unlock_slow_function)real((void **)&real_unlock_slow, UNLOCK_SLOW))(word);
}
