// Reads of a memory-mapped file that another process shrinks while it is read.
//
// A page of a mapping past the file's new end raises SIGBUS on access, which would end the
// process. While a range is guarded, a SIGBUS inside it maps a page of zeros there instead
// (the read goes on, and sees zeros) and marks the guard: the reader then discards what it
// read and reports the file as changed. A SIGBUS anywhere else goes to the handler installed
// before (or ends the process as it would have).
//
// Bound: at most TK_FILE_GUARD_SLOTS ranges are guarded at once; beyond that
// tk_file_guard_begin returns -1 and the caller reads the file instead of mapping it.
#ifndef TK_FILE_GUARD_H
#define TK_FILE_GUARD_H

#include <stddef.h>

#define TK_FILE_GUARD_SLOTS 64

/// Guards [base, base + length). Returns the guard's slot, or -1 when every slot is in use
/// or the handler could not be installed.
int tk_file_guard_begin(const void *base, size_t length);

/// Ends a guard, once every reader of the range has finished and before the range is
/// unmapped (a fault being handled then would map its page of zeros over whatever took the
/// address). Returns 1 when a read in the range faulted while it was guarded, else 0.
int tk_file_guard_end(int slot);

#endif
