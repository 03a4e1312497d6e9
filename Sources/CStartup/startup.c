#include "startup.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

// Runs before main (and so before the Swift runtime starts its threads): only system calls
// and snprintf.
__attribute__((constructor)) static void tk_check_open_files(void) {
    struct rlimit l;
    if (getrlimit(RLIMIT_NOFILE, &l) != 0) return;
    if (l.rlim_cur == RLIM_INFINITY || l.rlim_cur >= TK_MINIMUM_OPEN_FILES) return;
    long soft = (long)l.rlim_cur;
    if (l.rlim_max == RLIM_INFINITY || l.rlim_max >= TK_MINIMUM_OPEN_FILES) {
        l.rlim_cur = TK_MINIMUM_OPEN_FILES;
        if (setrlimit(RLIMIT_NOFILE, &l) == 0) return;
    }
    char text[200];
    int n = l.rlim_max == RLIM_INFINITY
        ? snprintf(text, sizeof text, "error: the open-file limit (ulimit -n) is %ld and cannot be raised: triggerkit needs at least %d\n",
                   soft, TK_MINIMUM_OPEN_FILES)
        : snprintf(text, sizeof text, "error: the open-file limit (ulimit -n) is %ld, at most %ld: triggerkit needs at least %d\n",
                   soft, (long)l.rlim_max, TK_MINIMUM_OPEN_FILES);
    if (n > 0) {
        ssize_t written = write(2, text, (size_t)(n < (int)sizeof text ? n : (int)sizeof text - 1));
        (void)written;
    }
    _exit(2);
}
