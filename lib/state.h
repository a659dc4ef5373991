/* state.h -- the recorder's shared state: the calling thread's streams,
 * the process's gate, the entry stub's capture switch and the policy
 * path's limits.
 *
 * Every file that reads or writes them depends on state.c, which depends
 * on nothing, so that the hooks, the policy path, capture and start-up
 * need not reach into each other for it.
 */
#ifndef CTRACE_STATE_H
#define CTRACE_STATE_H

#include <errno.h>

#include "internal.h"

/* initial-exec: the recorder lives in the executable, so its TLS is in the
 * static block and each access is one %fs-relative instruction.  The
 * 16-byte alignment, which the x86-64 ABI gives a large object where it is
 * defined, is stated so that the hooks, which only see this declaration,
 * may still use aligned vector stores on it. */
#define CTRACE_STATE_SELF_ATTR                                                 \
	__attribute__((tls_model("initial-exec"), aligned(16))) CTRACE_HIDDEN
extern __thread struct ctrace__thread ctrace__state_tls CTRACE_STATE_SELF_ATTR;

/* The policy gate (CTRACE_GATE_*), on a page of its own (internal.h). */
CTRACE_HIDDEN extern struct ctrace__gate_page ctrace__state_gate;
#define ctrace__gate (ctrace__state_gate.gate)

/* Nonzero when any capture list is set (capture.c sets it). */
CTRACE_HIDDEN extern uint8_t ctrace__state_capture_on;

/* Nonzero when entries need the callee-saved registers (capture.c):
 * arguments captured, or return values caught by the trampoline alone
 * (no plan `exit` lines).  The entry stub then saves them and calls
 * ctrace__hook_enter_regs; else it jumps to the plain hook, and an entry
 * that sets a trampoline makes do with the stack and frame pointers
 * (ctrace__event_policy).  Read by hooks.S. */
CTRACE_HIDDEN extern uint8_t ctrace__state_entry_regs_on;

/* Nonzero when return values are read at the exit hook (CTRACE_RETVAL
 * and a plan with `exit` lines): the exit stub looks its return address
 * up in the plan's exit table and, unless no line has it, saves the
 * registers and calls ctrace__hook_exit_regs.  Read by hooks.S. */
CTRACE_HIDDEN extern uint8_t ctrace__state_exit_regs_on;

/* Nonzero while the recorder does its own work on this thread outside an
 * event (start, exit, fork, markers, library call trampolines): its calls
 * into libc may go through the program's GOT slots, and plt.c lets them
 * go straight on, unrecorded. */
CTRACE_HIDDEN extern __thread uint8_t ctrace__state_self
	__attribute__((tls_model("initial-exec")));

/* Work the recorder does when the program calls it (the public API, the
 * toggle signal's handler) is its own (ctrace__state_self raised), its
 * errno the program's.  Begun before errno is read, whose address is a
 * library call too, and `const`: the barrier keeps that call after the
 * mark.  Returns errno, for ctrace__api_end to put back before the mark
 * is lowered. */
static inline int ctrace__api_begin(void)
{
	ctrace__state_self++;
	ctrace__barrier();
	return errno;
}
static inline void ctrace__api_end(int saved_errno)
{
	errno = saved_errno;
	ctrace__barrier();
	ctrace__state_self--;
}

/* The policy path's limits, set at start-up (switch.c). */
CTRACE_HIDDEN extern uint32_t ctrace__state_max_depth; /* 0: no limit */
CTRACE_HIDDEN extern uint64_t ctrace__state_min_ticks; /* in clock ticks */

#endif
