// Checks the `triggerkit` executable makes before any Swift code runs (the library targets
// never link this: an embedding process keeps its own environment).
//
// The open-file limit: with fewer than TK_MINIMUM_OPEN_FILES descriptors, the Swift runtime's
// thread pool (libdispatch) fails to open a file it monitors its threads by and stops the
// process with SIGILL, even for `--help` (found by a helper: `ulimit -n 4`). Before the runtime
// starts, a soft limit below the minimum is raised to it when the hard limit allows; when it
// does not, the process writes one line to standard error and exits with status 2. (A
// constructor: nothing calls it, the executable links it.)
#ifndef TK_STARTUP_H
#define TK_STARTUP_H

#define TK_MINIMUM_OPEN_FILES 16
// The descriptors that must be free at start (the minimum less standard input, output and
// error): descriptors a parent left open count against the limit; the soft limit is raised
// by what is missing when the hard limit allows, or the process exits as above.
#define TK_MINIMUM_FREE_FILES 13

#endif
