/* ctrace.h -- the public interface of the ctrace recorder (libctrace.a).
 *
 * Most programs need nothing from this header: compiling with
 * -finstrument-functions and linking -lctrace records every instrumented
 * call into trace.bin (see README for the environment variables).  The
 * functions below let a program ask where its trace goes and make the file
 * current while it runs.
 *
 * Every function here is safe to call from any thread, before or after
 * the recorder has started, and returns 0 or a negative errno value where
 * it returns an int.
 */
#ifndef CTRACE_H
#define CTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#define CTRACE_VERSION_MAJOR_NUMBER 0
#define CTRACE_VERSION_MINOR_NUMBER 1
#define CTRACE_VERSION_PATCH_NUMBER 0
#define CTRACE_VERSION_STRING "0.1.0"

/* Returns the path of the trace file this process is writing (absolute:
 * CTRACE_OUTPUT, or CTRACE_OUTPUT.<pid> in a fork()ed child), or NULL when
 * the process is not recording (CTRACE=off, the file could not be created,
 * or no instrumented function has run yet).  The string stays valid until
 * the process forks or exits. */
__attribute__((no_instrument_function))
const char *ctrace_trace_path(void);

/* Brings the trace file up to date for a reader while the program runs:
 * records shared objects loaded since the last look and refreshes the clock
 * calibration.  Events themselves never wait for this: they are in the file
 * (a shared mapping) as soon as they are recorded.
 * Returns 0, or -ENODEV when the process is not recording. */
__attribute__((no_instrument_function))
int ctrace_flush(void);

#ifdef __cplusplus
}
#endif

#endif /* CTRACE_H */
