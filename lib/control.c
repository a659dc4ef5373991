/* control.c -- the public control API: on/off switches, the toggle
 * signal, markers, tracepoints and the live callback.  The switches
 * themselves, shared with start-up, are in switch.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "state.h"
#include "switch.h"

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
	int saved_errno = ctrace__api_begin();
	struct ctrace__thread *t = self();
	if (t != NULL) {
		set_off(0);
		ctrace__switch_control(t, CTRACE_CONTROL_ON,
				       CTRACE_CONTROL_PROCESS);
	}
	ctrace__api_end(saved_errno);
}

void ctrace_disable(void)
{
	int saved_errno = ctrace__api_begin();
	struct ctrace__thread *t = self();
	if (t != NULL) {
		ctrace__switch_control(t, CTRACE_CONTROL_OFF,
				       CTRACE_CONTROL_PROCESS);
		set_off(1);
	}
	ctrace__api_end(saved_errno);
}

void ctrace_thread_enable(void)
{
	int saved_errno = ctrace__api_begin();
	struct ctrace__thread *t = self();
	if (t != NULL) {
		atomic_fetch_or(&ctrace__gate, CTRACE_GATE_SHADOW);
		t->thread_off = 0;
		ctrace__switch_control(t, CTRACE_CONTROL_ON,
				       CTRACE_CONTROL_THREAD);
	}
	ctrace__api_end(saved_errno);
}

void ctrace_thread_disable(void)
{
	int saved_errno = ctrace__api_begin();
	struct ctrace__thread *t = self();
	if (t != NULL) {
		ctrace__switch_control(t, CTRACE_CONTROL_OFF,
				       CTRACE_CONTROL_THREAD);
		atomic_fetch_or(&ctrace__gate, CTRACE_GATE_SHADOW);
		t->thread_off = 1;
	}
	ctrace__api_end(saved_errno);
}

int ctrace_is_enabled(void)
{
	int saved_errno = ctrace__api_begin();
	struct ctrace__thread *t = self();
	int on = t != NULL && !t->thread_off &&
		 !(atomic_load(&ctrace__gate) & CTRACE_GATE_OFF);
	ctrace__api_end(saved_errno);
	return on;
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
	ctrace__switch_record(t, CTRACE_REC_MARK, rec, len);
}

void ctrace_mark(const char *fmt, ...)
{
	int saved_errno = ctrace__api_begin();
	va_list ap;
	va_start(ap, fmt);
	record_mark(CTRACE_MARK_USER, NULL, fmt, ap);
	va_end(ap);
	ctrace__api_end(saved_errno);
}

void ctrace_tracepoint_hit(const struct ctrace_tracepoint *tp,
			   const char *fmt, ...)
{
	int saved_errno = ctrace__api_begin();
	va_list ap;
	va_start(ap, fmt);
	record_mark(CTRACE_MARK_TRACEPOINT, tp->name, fmt, ap);
	va_end(ap);
	ctrace__api_end(saved_errno);
}

int ctrace_tracepoint_enable(const char *pattern)
{
	int saved_errno = ctrace__api_begin();
	int n = ctrace__switch_tracepoints(pattern, 1);
	ctrace__api_end(saved_errno);
	return n;
}

int ctrace_tracepoint_disable(const char *pattern)
{
	int saved_errno = ctrace__api_begin();
	int n = ctrace__switch_tracepoints(pattern, 0);
	ctrace__api_end(saved_errno);
	return n;
}

/* ---------------------------------------------------------------------------
 * Callback
 * ------------------------------------------------------------------------ */

int ctrace_set_callback(ctrace_callback_fn fn, void *data)
{
	int saved_errno = ctrace__api_begin();
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
	ctrace__api_end(saved_errno);
	return err;
}
