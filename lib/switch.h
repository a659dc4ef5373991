/* switch.h -- the recording switches outside the API (switch.c). */
#ifndef CTRACE_SWITCH_H
#define CTRACE_SWITCH_H

#include "internal.h"

/* Sets up the toggle signal, the tracepoints and the gate from the
 * configuration, at start-up. */
CTRACE_HIDDEN void ctrace__switch_init(const struct ctrace__config *c);
/* Records an extended record in the thread's stream, unless the thread is
 * inside the recorder (a signal handler) or recording is off. */
CTRACE_HIDDEN void ctrace__switch_record(struct ctrace__thread *t,
					 uint8_t type, const void *payload,
					 size_t len);
/* A CONTROL record: recording switched (what) for the thread or the
 * process (scope). */
CTRACE_HIDDEN void ctrace__switch_control(struct ctrace__thread *t,
					  uint8_t what, uint8_t scope);
/* Enables (on) or disables the tracepoints whose name matches the glob
 * pattern; returns how many. */
CTRACE_HIDDEN int ctrace__switch_tracepoints(const char *pattern, int on);

#endif
