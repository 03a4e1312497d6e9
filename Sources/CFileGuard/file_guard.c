#include "file_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Each slot: the guarded range, claimed by a compare-and-swap on `starts` (0 is free), and
// whether a read in it faulted. Only atomics: the handler may run on any thread, at any time.
static _Atomic uintptr_t starts[TK_FILE_GUARD_SLOTS];
static _Atomic uintptr_t ends[TK_FILE_GUARD_SLOTS];
static _Atomic int faulted[TK_FILE_GUARD_SLOTS];

static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static _Atomic int installedOK;
static uintptr_t pageSize;  // read before the handler is installed: no call in the handler

static void on_bus_error(int signal, siginfo_t *info, void *context) {
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int i = 0; i < TK_FILE_GUARD_SLOTS; i++) {
        uintptr_t start = atomic_load(&starts[i]);
        if (start == 0 || address < start || address >= atomic_load(&ends[i])) continue;
        // A page the file no longer has: zeros in its place, so the faulting read is
        // retried and completes. mmap is a plain system call on Linux (not on POSIX's list of
        // async-signal-safe functions, but it takes no user-space lock).
        void *at = (void *)(address & ~(pageSize - 1));
        if (mmap(at, pageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
        atomic_store(&faulted[i], 1);
        return;
    }
    // Not a guarded read: as if this handler had never been installed.
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(signal, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(signal);
    } else {
        // The default action, taken when the faulting instruction runs again.
        struct sigaction standard;
        memset(&standard, 0, sizeof standard);
        standard.sa_handler = SIG_DFL;
        sigemptyset(&standard.sa_mask);
        sigaction(SIGBUS, &standard, NULL);
    }
}

static void install(void) {
    pageSize = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGBUS, &action, &previous) == 0) atomic_store(&installedOK, 1);
}

int tk_file_guard_begin(const void *base, size_t length) {
    pthread_once(&installed, install);
    if (!atomic_load(&installedOK) || base == NULL || length == 0) return -1;
    for (int i = 0; i < TK_FILE_GUARD_SLOTS; i++) {
        uintptr_t free = 0;
        if (atomic_compare_exchange_strong(&starts[i], &free, (uintptr_t)base)) {
            atomic_store(&faulted[i], 0);
            atomic_store(&ends[i], (uintptr_t)base + length);
            return i;
        }
    }
    return -1;
}

int tk_file_guard_end(int slot) {
    if (slot < 0 || slot >= TK_FILE_GUARD_SLOTS) return 0;
    int result = atomic_load(&faulted[slot]);
    atomic_store(&ends[slot], 0);
    atomic_store(&starts[slot], 0);
    return result;
}
