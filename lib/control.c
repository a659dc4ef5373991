/* control.c -- the public control API: on/off switches, the toggle
 * signal, markers, tracepoints and the live callback. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "state.h"

/* ---------------------------------------------------------------------------
 * Recording state of the calling thread
 * ------------------------------------------------------------------------ */

/* Starts the recorder and registers the thread if needed; returns the
 * thread, or NULL when the process does not record. */
static struct ctrace__thread *self(void)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	if (t->state == CTRACE_T_NEW)
		ctrace__thread_start(t);
	return t->state == CTRACE_T_OFF ? NULL : t;
}

/* Records an extended record in the thread's stream, unless the thread is
 * inside the recorder (a signal handler) or recording is off. */
static void thread_record(struct ctrace__thread *t, uint8_t type,
			  const void *payload, size_t len)
{
	if (t->state != CTRACE_T_IDLE)
		return;
	t->busy_sp = ctrace__sp();
	ctrace__barrier();
	/* Settled: no event to lose if a handler leaves this by a jump. */
	t->state = CTRACE_T_SETTLED;
	ctrace__barrier();
	ctrace__stream_record(&t->main, type, payload, len);
	ctrace__barrier();
	t->state = CTRACE_T_IDLE;
}

static void record_control(struct ctrace__thread *t, uint8_t what,
			   uint8_t scope)
{
	uint8_t rec[10];
	uint64_t now = ctrace__now();
	memcpy(rec, &now, 8);
	rec[8] = what;
	rec[9] = scope;
	thread_record(t, CTRACE_REC_CONTROL, rec, sizeof rec);
}

/* Once recording can be switched, every thread keeps its shadow stack so
 * that exits follow their entries. */
static void set_off(int off)
{
	atomic_fetch_or(&ctrace__gate, CTRACE_GATE_SHADOW);
	if (off)
		atomic_fetch_or(&ctrace__gate, CTRACE_GATE_OFF);
	else
		atomic_fetch_and(&ctrace__gate, (uint8_t)~CTRACE_GATE_OFF);
}

void ctrace_enable(void)
{
	int saved_errno = errno;
	struct ctrace__thread *t = self();
	if (t != NULL) {
		set_off(0);
		record_control(t, CTRACE_CONTROL_ON, CTRACE_CONTROL_PROCESS);
	}
	errno = saved_errno;
}

void ctrace_disable(void)
{
	int saved_errno = errno;
	struct ctrace__thread *t = self();
	if (t != NULL) {
		record_control(t, CTRACE_CONTROL_OFF, CTRACE_CONTROL_PROCESS);
		set_off(1);
	}
	errno = saved_errno;
}

void ctrace_thread_enable(void)
{
	int saved_errno = errno;
	struct ctrace__thread *t = self();
	if (t != NULL) {
		atomic_fetch_or(&ctrace__gate, CTRACE_GATE_SHADOW);
		t->thread_off = 0;
		record_control(t, CTRACE_CONTROL_ON, CTRACE_CONTROL_THREAD);
	}
	errno = saved_errno;
}

void ctrace_thread_disable(void)
{
	int saved_errno = errno;
	struct ctrace__thread *t = self();
	if (t != NULL) {
		record_control(t, CTRACE_CONTROL_OFF, CTRACE_CONTROL_THREAD);
		atomic_fetch_or(&ctrace__gate, CTRACE_GATE_SHADOW);
		t->thread_off = 1;
	}
	errno = saved_errno;
}

int ctrace_is_enabled(void)
{
	int saved_errno = errno;
	struct ctrace__thread *t = self();
	int on = t != NULL && !t->thread_off &&
		 !(atomic_load(&ctrace__gate) & CTRACE_GATE_OFF);
	errno = saved_errno;
	return on;
}

/* ---------------------------------------------------------------------------
 * The toggle signal
 * ------------------------------------------------------------------------ */

static void toggle(int sig)
{
	(void)sig;
	int saved_errno = errno;
	uint8_t old = atomic_fetch_xor(&ctrace__gate, CTRACE_GATE_OFF);
	struct ctrace__thread *t = &ctrace__state_tls;
	if (t->state == CTRACE_T_IDLE)
		record_control(t,
			       (old & CTRACE_GATE_OFF) ? CTRACE_CONTROL_ON
						       : CTRACE_CONTROL_OFF,
			       CTRACE_CONTROL_PROCESS);
	errno = saved_errno;
}

/* ---------------------------------------------------------------------------
 * Markers and tracepoints
 * ------------------------------------------------------------------------ */

/* Payload: u64 ticks, u8 kind, then for a tracepoint its name and a NUL,
 * then the text. */
static void record_mark(uint8_t kind, const char *name, const char *fmt,
			va_list ap)
{
	struct ctrace__thread *t = self();
	if (t == NULL || t->thread_off ||
	    (atomic_load(&ctrace__gate) & CTRACE_GATE_OFF))
		return;
	char rec[9 + 128 + 1024];
	uint64_t now = ctrace__now();
	memcpy(rec, &now, 8);
	rec[8] = (char)kind;
	size_t len = 9;
	if (name != NULL) {
		size_t n = strnlen(name, 127);
		memcpy(rec + len, name, n);
		len += n;
		rec[len++] = '\0';
	}
	int n = vsnprintf(rec + len, 1024, fmt, ap);
	if (n > 0)
		len += (size_t)n < 1024 ? (size_t)n : 1023;
	thread_record(t, CTRACE_REC_MARK, rec, len);
}

void ctrace_mark(const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;
	va_start(ap, fmt);
	record_mark(CTRACE_MARK_USER, NULL, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void ctrace_tracepoint_hit(const struct ctrace_tracepoint *tp,
			   const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;
	va_start(ap, fmt);
	record_mark(CTRACE_MARK_TRACEPOINT, tp->name, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

/* The linker collects CTRACE_TRACEPOINT's pointers into this section and
 * defines its bounds; both are absent when the program has none. */
extern struct ctrace_tracepoint *const __start_ctrace_tracepoints[]
	__attribute__((weak, visibility("hidden")));
extern struct ctrace_tracepoint *const __stop_ctrace_tracepoints[]
	__attribute__((weak, visibility("hidden")));

/* The bytes of a tracepoint this recorder reads: one compiled with a later
 * header is larger (fields added at the end), one smaller cannot be read. */
#define TRACEPOINT_MIN_SIZE                                                   \
	(offsetof(struct ctrace_tracepoint, line) + sizeof(unsigned))

static int tracepoints_set(const char *pattern, int on)
{
	int n = 0;
	if (__start_ctrace_tracepoints == NULL)
		return 0;
	for (struct ctrace_tracepoint *const *p = __start_ctrace_tracepoints;
	     p < __stop_ctrace_tracepoints; p++)
		if ((*p)->size >= TRACEPOINT_MIN_SIZE &&
		    fnmatch(pattern, (*p)->name, 0) == 0) {
			(*p)->enabled = on;
			n++;
		}
	return n;
}

int ctrace_tracepoint_enable(const char *pattern)
{
	int saved_errno = errno;
	int n = tracepoints_set(pattern, 1);
	errno = saved_errno;
	return n;
}

int ctrace_tracepoint_disable(const char *pattern)
{
	int saved_errno = errno;
	int n = tracepoints_set(pattern, 0);
	errno = saved_errno;
	return n;
}

/* ---------------------------------------------------------------------------
 * Callback
 * ------------------------------------------------------------------------ */

int ctrace_set_callback(ctrace_callback_fn fn, void *data)
{
	int saved_errno = errno;
	int err = 0;
	if (self() == NULL) {
		err = -ENODEV;
	} else if (fn == NULL) {
		atomic_fetch_and(&ctrace__gate,
				 (uint8_t)~CTRACE_GATE_CALLBACK);
		ctrace__callback = NULL;
	} else {
		ctrace__callback_data = data;
		ctrace__barrier();
		ctrace__callback = fn;
		atomic_fetch_or(&ctrace__gate,
				CTRACE_GATE_CALLBACK | CTRACE_GATE_SHADOW);
	}
	errno = saved_errno;
	return err;
}

/* ---------------------------------------------------------------------------
 * Start-up
 * ------------------------------------------------------------------------ */

void ctrace__control_init(const struct ctrace__config *c)
{
	uint8_t gate = 0;
	if (c->max_depth) {
		ctrace__max_depth = c->max_depth;
		gate |= CTRACE_GATE_DEPTH;
	}
	if (c->min_ns) {
		ctrace__min_ticks = ctrace__ns_to_ticks(c->min_ns);
		gate |= CTRACE_GATE_DURATION;
	}
	if (c->start_off)
		gate |= CTRACE_GATE_OFF | CTRACE_GATE_SHADOW;
	if (c->toggle_signal) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = toggle;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(c->toggle_signal, &sa, NULL) == 0)
			gate |= CTRACE_GATE_SHADOW;
	}
	int table = ctrace__filter_init(c);
	if (table > 0)
		gate |= CTRACE_GATE_TABLE;
	if (c->tracepoints != NULL) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", c->tracepoints);
		for (char *save, *tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			tracepoints_set(tok, 1);
	}
	atomic_fetch_or(&ctrace__gate, gate);
}
