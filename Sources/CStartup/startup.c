#include "startup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

// How many descriptors can still be opened, up to `want` (each probe is closed again). When a
// probe fails for another reason than the limit (no /dev/null), `want`: nothing is known.
static int tk_free_descriptors(int want) {
    int held[TK_MINIMUM_OPEN_FILES];
    int n = 0;
    int limited = 0;
    while (n < want) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            limited = errno == EMFILE;
            break;
        }
        held[n++] = fd;
    }
    for (int i = 0; i < n; i++) close(held[i]);
    return limited ? n : want;
}

static void tk_refuse_with(const char *text, int n, int status) {
    if (n > 0) {
        ssize_t written = write(2, text, (size_t)n);
        (void)written;
    }
    _exit(status);
}

static void tk_refuse(const char *text, int n) { tk_refuse_with(text, n, 2); }

// At exit: what went through the C library's standard output (`print`: ArgumentParser's
// `--help` and `--version`, `serve --print-openapi`) is flushed, and a failed write is status 3, as
// for every command's own output (`--version >/dev/full` exited 0; a helper's find). The
// commands' own output is written with write(2) and reports its failures itself.
static void tk_flush_stdout(void) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return;
    char text[200];
    int n = snprintf(text, sizeof text, "error: writing to standard output failed (%s)\n", strerror(errno));
    tk_refuse_with(text, n < (int)sizeof text ? n : (int)sizeof text - 1, 3);
}

// Runs before main (and so before the Swift runtime starts its threads): only system calls,
// snprintf and atexit.
__attribute__((constructor)) static void tk_check_open_files(void) {
    // A standard descriptor the parent closed (`>&-`) is held by a placeholder that fails
    // the same way (/dev/null opened the other way round: EBADF), so that nothing else gets
    // its number: the runtime's first descriptor became 1, and `print` wrote into it (a
    // reviewer's find); a state file could have.
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        int held = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
        if (held >= 0 && held != fd) {
            dup2(held, fd);
            close(held);
        }
    }
    atexit(tk_flush_stdout);
    struct rlimit l;
    if (getrlimit(RLIMIT_NOFILE, &l) != 0) return;
    char text[240];
    long soft = (long)l.rlim_cur;
    if (l.rlim_cur != RLIM_INFINITY && l.rlim_cur < TK_MINIMUM_OPEN_FILES) {
        if (l.rlim_max == RLIM_INFINITY || l.rlim_max >= TK_MINIMUM_OPEN_FILES) {
            l.rlim_cur = TK_MINIMUM_OPEN_FILES;
            if (setrlimit(RLIMIT_NOFILE, &l) != 0) l.rlim_cur = (rlim_t)soft;
        }
        if (l.rlim_cur < TK_MINIMUM_OPEN_FILES) {
            int n = l.rlim_max == RLIM_INFINITY
                ? snprintf(text, sizeof text, "error: the open-file limit (ulimit -n) is %ld and cannot be raised: triggerkit needs at least %d\n",
                           soft, TK_MINIMUM_OPEN_FILES)
                : snprintf(text, sizeof text, "error: the open-file limit (ulimit -n) is %ld, at most %ld: triggerkit needs at least %d\n",
                           soft, (long)l.rlim_max, TK_MINIMUM_OPEN_FILES);
            tk_refuse(text, n < (int)sizeof text ? n : (int)sizeof text - 1);
        }
    }
    // Descriptors inherited open (a shell's `exec 3<file` ...) count against the limit too:
    // with one left the runtime stopped with SIGILL as below the minimum (a helper's find).
    int avail = tk_free_descriptors(TK_MINIMUM_FREE_FILES);
    if (avail >= TK_MINIMUM_FREE_FILES) return;
    if (l.rlim_cur != RLIM_INFINITY) {
        rlim_t raised = l.rlim_cur + (rlim_t)(TK_MINIMUM_FREE_FILES - avail);
        if (l.rlim_max == RLIM_INFINITY || raised <= l.rlim_max) {
            struct rlimit r = l;
            r.rlim_cur = raised;
            if (setrlimit(RLIMIT_NOFILE, &r) == 0 && tk_free_descriptors(TK_MINIMUM_FREE_FILES) >= TK_MINIMUM_FREE_FILES) return;
        }
    }
    // (Counted against the limit in effect, perhaps raised above; named as the user set it,
    // with the hard limit that stopped the raise: a reviewer's find.)
    long open_now = (long)l.rlim_cur - avail;
    int n = l.rlim_max == RLIM_INFINITY
        ? snprintf(text, sizeof text, "error: %ld files are open at start and the open-file limit (ulimit -n) is %ld: triggerkit needs %d free\n",
                   open_now, soft, TK_MINIMUM_FREE_FILES)
        : snprintf(text, sizeof text, "error: %ld files are open at start and the open-file limit (ulimit -n) is %ld, at most %ld: triggerkit needs %d free\n",
                   open_now, soft, (long)l.rlim_max, TK_MINIMUM_FREE_FILES);
    tk_refuse(text, n < (int)sizeof text ? n : (int)sizeof text - 1);
}
