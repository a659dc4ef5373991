/* switch.c -- what switches recording on and off besides the API: the
 * configuration read at start-up (depth, duration, start off, filters,
 * tracepoints), the toggle signal, and the CONTROL records that date a
 * switch.  control.c (the API) and init.c (start-up) call it; it calls
 * neither. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "internal.h"
#include "state.h"
#include "switch.h"

/* Records an extended record in the thread's stream, unless the thread is
 * inside the recorder (a signal handler) or recording is off. */
void ctrace__switch_record(struct ctrace__thread *t, uint8_t type,
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

void ctrace__switch_control(struct ctrace__thread *t, uint8_t what,
			    uint8_t scope)
{
	uint8_t rec[10];
	uint64_t now = ctrace__now();
	memcpy(rec, &now, 8);
	rec[8] = what;
	rec[9] = scope;
	ctrace__switch_record(t, CTRACE_REC_CONTROL, rec, sizeof rec);
}

/* ---------------------------------------------------------------------------
 * The toggle signal
 * ------------------------------------------------------------------------ */

static void toggle(int sig)
{
	(void)sig;
	int saved_errno = ctrace__api_begin();
	uint8_t old = atomic_fetch_xor(&ctrace__gate, CTRACE_GATE_OFF);
	struct ctrace__thread *t = &ctrace__state_tls;
	uint8_t what = (old & CTRACE_GATE_OFF) ? CTRACE_CONTROL_ON
					       : CTRACE_CONTROL_OFF;
	if (t->state == CTRACE_T_IDLE)
		ctrace__switch_control(t, what, CTRACE_CONTROL_PROCESS);
	ctrace__api_end(saved_errno);
}

/* ---------------------------------------------------------------------------
 * Tracepoints
 * ------------------------------------------------------------------------ */

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

int ctrace__switch_tracepoints(const char *pattern, int on)
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

/* ---------------------------------------------------------------------------
 * Start-up
 * ------------------------------------------------------------------------ */

void ctrace__switch_init(const struct ctrace__config *c)
{
	uint8_t gate = 0;
	if (c->max_depth) {
		ctrace__state_max_depth = c->max_depth;
		gate |= CTRACE_GATE_DEPTH;
	}
	if (c->min_ns) {
		ctrace__state_min_ticks = ctrace__clock_ns_to_ticks(ctrace__file.header,
							     c->min_ns);
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
	/* The capture plan first: the filters leave the functions it says
	 * return nothing out of CTRACE_RETVAL (filter.c). */
	ctrace__capture_setup();
	int table = ctrace__filter_init(c);
	if (table > 0)
		gate |= CTRACE_GATE_TABLE;
	if (c->tracepoints != NULL) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", c->tracepoints);
		for (char *save, *tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			ctrace__switch_tracepoints(tok, 1);
	}
	atomic_fetch_or(&ctrace__gate, gate);
}
