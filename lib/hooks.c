/* hooks.c -- __cyg_profile_func_enter/exit: the recorder's hot path.
 *
 * An event costs: one clock read, a hash of (function, call site) into
 * the stream's pair table, and two or three byte stores.  There is no
 * lock, no system call, no allocation and no branch that is not predicted
 * in the steady state.  Everything else (the first event of a thread, a
 * full chunk, a new pair, a signal handler that interrupted the recorder)
 * takes a slow path out of line.
 */
#include "event.h"

/* ---------------------------------------------------------------------------
 * The hooks
 * ------------------------------------------------------------------------ */

/* The calling thread's state, as a plain pointer: the compiler would
 * otherwise address each field relative to the thread pointer, and reload
 * that pointer for each indexed one (pair slots, credits, open calls). */
static inline __attribute__((always_inline)) struct ctrace__thread *
hook_self(void)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	__asm__("" : "+r"(t));
	return t;
}

/* What a hook does inside the recorder when its event is not emit_fast()'s
 * common case.  Out of line and called last, so that no register is kept
 * across a call on the hooks' common path: the compiler makes these tail
 * calls, and the event's slow path runs in their one frame. */
static __attribute__((noinline)) CTRACE_REALIGN void
enter_rest(uintptr_t fn, uintptr_t site, uintptr_t sp, uintptr_t fp,
	   uint64_t now, uintptr_t outer)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	emit_rest_body(emit_how(&t->main, 0, sp, now), &t->main, 0, fn, site,
		       sp, NULL, fp, now, 1, &t->state);
	pause_put(&t->main, now, 0, CTRACE_PAUSE_MIN_TICKS,
		  CTRACE_PAUSE_NO_DRAIN);
	ctrace__event_idle(t, outer);
}

static __attribute__((noinline)) CTRACE_REALIGN void
exit_rest(int how, uintptr_t fn, uintptr_t site, uintptr_t sp, uint64_t now,
	  uintptr_t outer)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	emit_rest_body(how, &t->main, CTRACE_TAG_EXIT_BIT, fn, site, sp, NULL,
		       0, now, 1, &t->state);
	pause_put(&t->main, now, 0, CTRACE_PAUSE_MIN_TICKS,
		  CTRACE_PAUSE_NO_DRAIN);
	ctrace__event_idle(t, outer);
}

/* The same when the gate asks for more than a filter (control, capture,
 * depth) or the clock is not the TSC (a call to read it). */
static __attribute__((noinline)) CTRACE_REALIGN void
record_rest(uint8_t exit_bit, uintptr_t fn, uintptr_t site, uintptr_t sp,
	    uintptr_t fp, uintptr_t outer)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	ctrace__event_record(t, exit_bit, fn, site, sp, fp);
	ctrace__event_idle(t, outer);
}

/* With filters alone, what ctrace__event_record() decides, inline in the hooks: 1 to
 * record the event as with no control at all, 0 to skip it (a function
 * filtered out costs this lookup and nothing else), -1 for the rest
 * (record_rest). */
static inline __attribute__((always_inline)) int
table_go(struct ctrace__thread *t, uint8_t gate, uint8_t exit_bit,
	 uintptr_t fn, uintptr_t site)
{
	if (gate != (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE))
		return -1;
	/* An exit asks the table whether its function is filtered out or
	 * returns a value to capture: with neither anywhere (arguments
	 * alone, say), it is recorded without a lookup.  (A return through
	 * the trampoline needs a function that returns a value.) */
	if (exit_bit &&
	    !(atomic_load_explicit(&ctrace__flags_any, memory_order_relaxed) &
	      (CTRACE_F_SKIP | CTRACE_F_RETVAL)))
		return 1;
	uint8_t flags;
	if (exit_bit)
		flags = ctrace__function_flags(fn);
	else if (!ctrace__entry_flags_known(t, fn, &flags))
		return -1; /* record_rest: its object checked first */
	if (flags & CTRACE_F_SKIP)
		return 0;
	return ctrace__event_more(flags, exit_bit, site) ? -1 : 1;
}

/* What a hook does first once busy: 1 when the event is emit_fast()'s to
 * try (no control beyond filters, the clock the TSC); else 0, the event
 * taken care of (filtered out, or recorded by record_rest()). */
static inline __attribute__((always_inline)) int
hook_gate(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
	  uintptr_t site, uintptr_t sp, uintptr_t fp, uintptr_t outer)
{
	uint8_t gate = atomic_load_explicit(&ctrace__gate,
					    memory_order_relaxed);
	if (unlikely(gate != CTRACE_GATE_LIVE)) {
		int go = table_go(t, gate, exit_bit, fn, site);
		if (go <= 0) {
			if (go < 0)
				record_rest(exit_bit, fn, site, sp, fp, outer);
			else
				ctrace__event_idle(t, outer);
			return 0;
		}
	}
	if (unlikely(!ctrace__use_tsc)) {
		record_rest(exit_bit, fn, site, sp, fp, outer);
		return 0;
	}
	return 1;
}

/* __cyg_profile_func_enter is a stub in arch/<cpu>/hooks.S: it jumps here
 * (same frame, so CTRACE_CALLER_SP holds) with the function's frame
 * pointer register as `fp`, unless arguments or return values are
 * captured, and then calls ctrace__hook_enter_regs. */
CTRACE_HOOK_ABI void ctrace__hook_enter(void *fn, void *site, uintptr_t fp)
{
	struct ctrace__thread *t = hook_self();
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t sp = CTRACE_CALLER_SP(), outer = ctrace__event_busy(t, sp);
		if (!hook_gate(t, 0, (uintptr_t)fn, (uintptr_t)site, sp, fp,
			       outer))
			return;
		uint64_t now = ctrace__rdtsc();
		int how = emit_fast(&t->main, 0, (uintptr_t)fn,
				    (uintptr_t)site, sp, NULL, 0, now,
				    &t->state);
		if (unlikely(how != 0)) {
			enter_rest((uintptr_t)fn, (uintptr_t)site, sp, fp, now,
				   outer);
			return;
		}
		ctrace__event_idle(t, outer);
		return;
	}
	if (t->state != CTRACE_T_OFF)
		ctrace__event_slow(t, 0, (uintptr_t)fn, (uintptr_t)site,
				   CTRACE_CALLER_SP(), fp);
}

void ctrace__hook_enter_regs(void *fn, void *site,
			     const struct ctrace__regs *r)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t outer = ctrace__event_busy(t, r->sp);
		if (!ctrace__enter_quick(t, (uintptr_t)fn, (uintptr_t)site, r))
			ctrace__policy_enter_regs(t, (uintptr_t)fn,
						  (uintptr_t)site, r->sp, r);
		ctrace__event_idle(t, outer);
		return;
	}
	if (t->state != CTRACE_T_OFF)
		ctrace__event_slow_regs(t, (uintptr_t)fn, (uintptr_t)site, r);
}

/* The exit hook's work, from the stub in arch/<cpu>/hooks.S (the C hook
 * below, same frame) or from ctrace__hook_exit_regs; sp: the hook's
 * stack pointer, cfa: its CFA (for the policy path alone: see
 * ctrace__event_policy()). */
static inline __attribute__((always_inline)) void
hook_exit(void *fn, void *site, uintptr_t sp, uintptr_t cfa)
{
	struct ctrace__thread *t = hook_self();
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t outer = ctrace__event_busy(t, sp);
		if (!hook_gate(t, CTRACE_TAG_EXIT_BIT, (uintptr_t)fn,
			       (uintptr_t)site, sp, cfa, outer))
			return;
		uint64_t now = ctrace__rdtsc();
		int how = emit_fast(&t->main, CTRACE_TAG_EXIT_BIT,
				    (uintptr_t)fn, (uintptr_t)site, sp, NULL, 0,
				    now, &t->state);
		if (unlikely(how != 0)) {
			exit_rest(how, (uintptr_t)fn, (uintptr_t)site, sp,
				  now, outer);
			return;
		}
		ctrace__event_idle(t, outer);
		return;
	}
	if (t->state != CTRACE_T_OFF)
		ctrace__event_slow(t, CTRACE_TAG_EXIT_BIT, (uintptr_t)fn,
				   (uintptr_t)site, sp, cfa);
}

/* __cyg_profile_func_exit is a stub in arch/<cpu>/hooks.S: it jumps here
 * (same frame) unless return values are read at the exit hook, and then
 * calls ctrace__hook_exit_regs. */
void ctrace__hook_exit(void *fn, void *site)
{
	hook_exit(fn, site, ctrace__sp(), (uintptr_t)__builtin_dwarf_cfa());
}

/* An exit whose plan says where the return value is (an `exit` line of
 * the function given) reads it now; any other exit is recorded as the C
 * hook does.  The stub gives the table's slot it found (NULL: look). */
void ctrace__hook_exit_regs(void *fn, void *site, const struct ctrace__regs *r,
			    const struct ctrace__plan_exit *x)
{
	if (x == NULL)
		x = ctrace__plan_find_exit(r->pc);
	if (x == NULL || !x->rx || x->fn != (uintptr_t)fn) {
		hook_exit(fn, site, r->sp, r->sp);
		return;
	}
	struct ctrace__thread *t = &ctrace__state_tls;
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t outer = ctrace__event_busy(t, r->sp);
		if (!ctrace__exit_quick(t, (uintptr_t)fn, (uintptr_t)site, x,
					r))
			ctrace__policy_exit_read(t, (uintptr_t)fn,
						 (uintptr_t)site, r->sp, x, r);
		ctrace__event_idle(t, outer);
		return;
	}
	if (t->state != CTRACE_T_OFF)
		ctrace__event_slow_exit_regs(t, (uintptr_t)fn,
					     (uintptr_t)site, x, r);
}
