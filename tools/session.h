/* session.h -- the traces of one run (session.c): what ctrace record
 * announces and completes, what the views read when no trace is named. */
#ifndef CTRACE_TOOLS_SESSION_H
#define CTRACE_TOOLS_SESSION_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "ctrace_format.h"

/* Reads the header of the trace PATH: 0, or -1 if it is not a readable
 * ctrace trace of this machine's byte order. */
int session_header(const char *path, struct ctrace_file_header *h);

/* Whether NAME is BASE, BASE.PID or BASE.PID.N (the recorder's names). */
int session_is_trace_name(const char *name, const char *base);

/* The traces named BASE... in DIR whose run is RUN (run_id, nonzero), as
 * paths DIR/NAME with DIR as given ("." gives plain names): BASE first,
 * then by pid and exec count.  Returns the count; *paths is allocated. */
size_t session_run_traces(const char *dir, const char *base, uint64_t run,
			  char ***paths);

/* Makes DIR (and its parents) if needed and removes the traces an
 * earlier session left there (DIR/trace.bin...); returns DIR/trace.bin
 * (allocated).  Exits 2 with a message when DIR cannot be used. */
char *session_directory(const char *dir);

/* Stores what wait4 told of the process PID that ctrace record started
 * (STATUS, USAGE, and the time it was reaped) in the header of its last
 * trace among PATHS (the one its last exec wrote). */
void session_store_wait(char **paths, size_t count, pid_t pid, int status,
			const struct rusage *usage);

/* The traces a view reads when it is given none: trace.bin and every
 * trace.bin.* of the same run in the current directory (trace.bin alone
 * if it has no run).  NULL-terminated, allocated. */
char **session_default(void);

#endif /* CTRACE_TOOLS_SESSION_H */
