/* ctrace.h -- the public interface of the ctrace recorder (libctrace.a).
 * The man page libctrace(3) (lib/libctrace.3) documents it for users;
 * keep the two in step.
 *
 * Most programs need nothing from this header: compiling with
 * -finstrument-functions and linking -lctrace records every instrumented
 * call into trace.bin (ctrace-env(7) lists the environment variables).  This
 * header lets a program switch recording on and off, mark its own events,
 * define tracepoints, and watch calls live.
 *
 * Every function here may be called from any thread, before or after the
 * recorder has started (the first call starts it), and never changes errno.
 * Functions returning int return 0 (or a count) on success and a negative
 * errno value on failure.  None of them is async-signal-safe unless it says
 * so.
 */
#ifndef CTRACE_H
#define CTRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CTRACE_VERSION_MAJOR_NUMBER 0
#define CTRACE_VERSION_MINOR_NUMBER 1
#define CTRACE_VERSION_PATCH_NUMBER 0
#define CTRACE_VERSION_STRING "0.1.0"
/* The version as one number, (major << 16) | (minor << 8) | patch, as
 * ctrace_version() returns it. */
#define CTRACE_VERSION                                                        \
	((CTRACE_VERSION_MAJOR_NUMBER << 16) |                                \
	 (CTRACE_VERSION_MINOR_NUMBER << 8) | CTRACE_VERSION_PATCH_NUMBER)

#define CTRACE_NOINSTR __attribute__((no_instrument_function))

/* Returns the version of the recorder the program is linked with, as
 * (major << 16) | (minor << 8) | patch: 0x000100 for 0.1.0.  Compare it
 * with CTRACE_VERSION, the version of this header.  Async-signal-safe. */
CTRACE_NOINSTR unsigned ctrace_version(void);

/* ---------------------------------------------------------------------------
 * The trace file
 * ------------------------------------------------------------------------ */

/* Returns the absolute path of the trace file this process is writing
 * (CTRACE_OUTPUT, or CTRACE_OUTPUT.<pid> in a fork()ed child), or NULL
 * when the process is not recording (CTRACE=off, or the file could not be
 * created).  The string stays valid until the process forks or exits. */
CTRACE_NOINSTR const char *ctrace_trace_path(void);

/* Brings the file up to date for a reader while the program runs: records
 * shared objects loaded since the last look and refreshes the clock
 * calibration.  Events never wait for this: they are in the file (a shared
 * mapping) as soon as they are recorded.
 * Returns 0, or -ENODEV when the process is not recording. */
CTRACE_NOINSTR int ctrace_flush(void);

/* ---------------------------------------------------------------------------
 * Switching recording on and off
 *
 * A call entered while recording is on has its exit recorded even if
 * recording is switched off before it returns, and the other way round: the
 * trace never holds half a call.  CTRACE_START=off starts with recording
 * off; CTRACE_SIGNAL=SIG makes that signal toggle it from outside.
 * ------------------------------------------------------------------------ */

/* Process-wide: every thread. */
CTRACE_NOINSTR void ctrace_enable(void);
CTRACE_NOINSTR void ctrace_disable(void);
/* The calling thread only; process-wide "off" still wins. */
CTRACE_NOINSTR void ctrace_thread_enable(void);
CTRACE_NOINSTR void ctrace_thread_disable(void);
/* Returns 1 if calls made now by the calling thread are recorded
 * (ignoring filters), else 0. */
CTRACE_NOINSTR int ctrace_is_enabled(void);

/* ---------------------------------------------------------------------------
 * Markers
 * ------------------------------------------------------------------------ */

/* Records a printf-style message at this point of the calling thread's
 * trace; every output shows it in place.  Messages longer than 1024 bytes
 * are cut.  Not recorded while recording is off. */
CTRACE_NOINSTR void ctrace_mark(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
#define CTRACE_MARK(...) ctrace_mark(__VA_ARGS__)

/* ---------------------------------------------------------------------------
 * Tracepoints
 *
 *   CTRACE_TRACEPOINT(rows_parsed, "parsed %d rows", n);
 *
 * defines a named static tracepoint.  Disabled (the default) it costs one
 * load and one predicted branch; enabled it records a marker carrying its
 * name.  Enable them by name with CTRACE_TRACEPOINTS=pattern,... or
 * ctrace_tracepoint_enable().  Tracepoints in the executable are found;
 * those in shared libraries are not.
 * ------------------------------------------------------------------------ */

/* `size` is sizeof (struct ctrace_tracepoint) in the header the
 * tracepoint was compiled with: later versions add fields at the end only,
 * and the recorder reads only the fields that fit in `size`.  A tracepoint
 * too small to hold this version's fields is never enabled. */
struct ctrace_tracepoint {
	unsigned size;
	volatile int enabled;
	const char *name;
	const char *file;
	unsigned line;
};

#define CTRACE_TRACEPOINT(tp_name, ...)                                        \
	do {                                                                   \
		static struct ctrace_tracepoint ctrace_tp_ = {                 \
			sizeof(struct ctrace_tracepoint), 0, #tp_name,         \
			__FILE__, __LINE__};                                   \
		static struct ctrace_tracepoint *const ctrace_tp_ref_          \
			__attribute__((section("ctrace_tracepoints"), used)) = \
				&ctrace_tp_;                                   \
		(void)ctrace_tp_ref_;                                          \
		if (__builtin_expect(ctrace_tp_.enabled, 0))                   \
			ctrace_tracepoint_hit(&ctrace_tp_, __VA_ARGS__);       \
	} while (0)

/* Enable or disable every tracepoint whose name matches the glob
 * `pattern`.  Returns how many matched (tracepoints too small for this
 * version, see above, are not counted). */
CTRACE_NOINSTR int ctrace_tracepoint_enable(const char *pattern);
CTRACE_NOINSTR int ctrace_tracepoint_disable(const char *pattern);
/* Used by CTRACE_TRACEPOINT. */
CTRACE_NOINSTR void ctrace_tracepoint_hit(const struct ctrace_tracepoint *tp,
					  const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------------------
 * Live callback
 * ------------------------------------------------------------------------ */

enum ctrace_event_kind {
	CTRACE_EVENT_ENTRY = 1,
	CTRACE_EVENT_EXIT = 2,
};

struct ctrace_event {
	int kind;          /* enum ctrace_event_kind */
	void *function;    /* the instrumented function's address */
	void *call_site;   /* the return address in its caller */
	uint64_t time_ns;  /* since the trace started */
	uint32_t thread;   /* the trace's thread serial, from 1 */
	unsigned depth;    /* recorded calls open on this thread (entry: before
			      this one; exit: after it returned) */
};

typedef void (*ctrace_callback_fn)(const struct ctrace_event *ev, void *data);

/* Calls `fn` for every recorded entry and exit, on the thread that made
 * the call, after the event is in the trace.  NULL removes it.
 * The callback MAY: read the event, call functions (instrumented ones run
 * untraced while it runs), take its own locks, allocate.  It MUST NOT:
 * call ctrace_set_callback, longjmp or throw out of the callback, or block
 * for long (the traced thread waits).  Signal handlers that run while it
 * runs are not traced.  Returns 0, or -ENODEV when not recording. */
CTRACE_NOINSTR int ctrace_set_callback(ctrace_callback_fn fn, void *data);

#ifdef __cplusplus
}
#endif

#endif /* CTRACE_H */
