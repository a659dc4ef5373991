/* event.h -- the recorder's one entry point: every source of events (the
 * -finstrument-functions hooks in hooks.c, the library call trampolines
 * in plt.c) records through these, so that the gate, the filters, the
 * policy and the slow paths (a thread's first event, a signal handler
 * that interrupted the recorder, a jump out of one) are the same for all.
 * The inline part is the hooks' hot path; event.c holds the rest.
 */
#ifndef CTRACE_EVENT_H
#define CTRACE_EVENT_H

#include "capture.h"
#include "emit.h"
#include "retval.h"
#include "state.h"

/* An event's source (a hook, a library call, the recorder counting one
 * lost) goes busy, then idle, then leaves busy_sp as it found it.  A
 * signal handler whose instrumented code runs between a hook's store of
 * busy_sp and that of the state finds the thread idle and records on
 * this path; had it left
 * its own stack pointer in busy_sp, the hook would go busy with it, and
 * a second handler during the same event, at the first one's depth,
 * would take the live recorder for one left by a jump and recover under
 * it: the event counted lost and written over the handler's events, the
 * chunk given back under the writer.  The hooks' out-of-line paths take
 * `outer` along (hooks.c: reached by a tail call, keeping nothing). */
static inline __attribute__((always_inline)) void
ctrace__event_idle(struct ctrace__thread *t, uintptr_t outer)
{
	ctrace__barrier();
	t->state = CTRACE_T_IDLE;
	ctrace__barrier();
	t->busy_sp = outer;
}

/* Going busy, sp the stack pointer of the event's source: returns what
 * busy_sp held, for ctrace__event_idle() to put back. */
static inline __attribute__((always_inline)) uintptr_t
ctrace__event_busy(struct ctrace__thread *t, uintptr_t sp)
{
	uintptr_t outer = t->busy_sp;
	t->busy_sp = sp;
	ctrace__barrier();
	t->state = CTRACE_T_BUSY;
	ctrace__barrier();
	return outer;
}

/* For an exit, `fp` is the exit hook's CFA: return value capture tells the
 * function's own frame by it from those of callees a longjmp abandoned
 * below it. */
static inline void ctrace__event_policy(struct ctrace__thread *t, uint8_t exit_bit,
			  uintptr_t fn, uintptr_t site, uintptr_t sp,
			  uintptr_t fp)
{
	if (exit_bit) {
		ctrace__policy_exit(t, fn, site, sp, fp);
	} else if (ctrace__state_capture_on) {
		/* An entry of the plain hook with values on (return values
		 * read at the exits, ctrace__state_entry_regs_on clear): a
		 * trampoline needs the function's CFA, which the plan or
		 * the CFI finds from the stack and frame pointers and the
		 * hook's return address; arguments are not captured. */
		struct ctrace__regs r = {.sp = sp,
					 .pc = ctrace__hook_return(sp)};
		CTRACE_REGS_FP(&r) = fp;
		ctrace__policy_enter_regs(t, fn, site, sp, &r);
	} else {
		ctrace__policy_enter(t, fn, site, sp, fp);
	}
}

/* Whether an event with filters alone asks more than its record: its
 * function's arguments or return value at an entry, its return value
 * alone at an exit (policy_exit() records any other exit as the hooks'
 * fast path does).  An event given the return trampoline as its call
 * site (a function inlined into a patched frame) goes there too, for the
 * real one. */
static inline __attribute__((always_inline)) int
ctrace__event_more(uint8_t flags, uint8_t exit_bit, uintptr_t site)
{
	if (!exit_bit)
		return (flags & CTRACE_F_ARGS) ||
		       (flags & (CTRACE_F_RETVAL | CTRACE_F_RETREAD)) ==
			       CTRACE_F_RETVAL ||
		       unlikely(site == (uintptr_t)ctrace__retval_trampoline);
	return (flags & CTRACE_F_RETVAL) ||
	       unlikely(site == (uintptr_t)ctrace__retval_trampoline);
}

/* The captured calls' short paths (policy.c's comment before
 * enter_quick tells what they are): whether the gate and the clock allow
 * one, the call site not the return trampoline. */
static inline __attribute__((always_inline)) int
ctrace__quick_gate(uintptr_t site)
{
	uint8_t gate = atomic_load_explicit(&ctrace__gate, memory_order_relaxed);
	return gate == (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE) &&
	       likely(ctrace__use_tsc) &&
	       site != (uintptr_t)ctrace__retval_trampoline;
}

/* A plan slot's flags_seen: its function's flags | the address of the
 * flags table they came from (a mapping's, page-aligned; 0: none yet).
 * 1 with *flags when they were kept for table tab (not NULL). */
static inline __attribute__((always_inline)) int
plan_flags_kept(const _Atomic uintptr_t *seen,
		const struct ctrace__flags_table_t *tab, uint8_t *flags)
{
	uintptr_t v = atomic_load_explicit(seen, memory_order_relaxed);
	*flags = (uint8_t)v;
	return (v & ~(uintptr_t)0xff) == (uintptr_t)tab && tab != NULL;
}

/* Keeps flags for table tab (none without a table).  The slot is the
 * plan's, written only when the table changes; threads racing here
 * write the same value. */
static inline void plan_flags_keep(const _Atomic uintptr_t *seen,
				   const struct ctrace__flags_table_t *tab,
				   uint8_t flags)
{
	if (tab != NULL)
		atomic_store_explicit((_Atomic uintptr_t *)(uintptr_t)seen,
				      (uintptr_t)tab | flags,
				      memory_order_relaxed);
}

/* The flags of the function whose entry hook e is for (fn), as
 * ctrace__entry_flags() gives them, kept in e as an exit's slot keeps
 * them (ctrace__plan_exit_flags, below): those the table lists, and the
 * default flags of a function it does not list whose object was loaded
 * at start (one loaded since may be replaced by another at the same
 * address: decided each time, internal.h).  A wrong answer here costs
 * no event: a call this short path does not record goes to the policy
 * path, which asks the table itself. */
static inline __attribute__((always_inline)) uint8_t
ctrace__plan_entry_flags(struct ctrace__thread *t,
			 const struct ctrace__plan_entry *e, uintptr_t fn)
{
	const struct ctrace__flags_table_t *tab =
		atomic_load_explicit(&ctrace__flags_table, memory_order_acquire);
	uint8_t flags;
	if (likely(plan_flags_kept(&e->flags_seen, tab, &flags)))
		return flags;
	int listed = tab != NULL && ctrace__flags_find(tab, fn, &flags);
	if (!listed && !ctrace__entry_flags_unlisted(t, tab, fn, &flags))
		return ctrace__modules_flags_miss(t, fn);
	if (listed || !t->known_later)
		plan_flags_keep(&e->flags_seen, tab, flags);
	return flags;
}

/* An entry whose registers r were saved, on the short path (no
 * trampoline to set, arguments in registers alone): 1 when recorded,
 * else 0 having stored nothing (the caller then takes
 * ctrace__policy_enter_regs). */
static inline __attribute__((always_inline)) int
ctrace__enter_quick(struct ctrace__thread *t, uintptr_t fn, uintptr_t site,
		    const struct ctrace__regs *r)
{
	if (!ctrace__quick_gate(site))
		return 0;
	const struct ctrace__plan_entry *e = ctrace__plan_find(r->pc);
	uint8_t flags = e != NULL ? ctrace__plan_entry_flags(t, e, fn)
				  : ctrace__entry_flags(t, fn);
	/* Filtered out, or a return value for the trampoline to catch. */
	if ((flags & CTRACE_F_SKIP) ||
	    (flags & (CTRACE_F_RETVAL | CTRACE_F_RETREAD)) == CTRACE_F_RETVAL)
		return 0;
	struct ctrace__stream *s = &t->main;
	if (!(flags & CTRACE_F_ARGS))
		return emit_fast(s, 0, fn, site, r->sp, NULL, 0,
				 ctrace__rdtsc(), &t->state) == 0;
	/* Each case its own emit_fast(), whose registers inline (format 6)
	 * are then no test at run time. */
	if (e == NULL || !e->regs_only || (r->sp & (sizeof(uintptr_t) - 1)) ||
	    (size_t)(s->chunk_end - s->cur) <
		    CTRACE_MAX_EVENT_BYTES + CTRACE_ARGS_REGS_MAX)
		return 0;
	uint64_t now = ctrace__rdtsc();
	if (CTRACE__PAIR_ARGS != 0) {
		const struct ctrace__args_inline a = {r, e->regs_sel};
		return emit_fast(s, 0, fn, site, r->sp, &a, 0, now,
				 &t->state) == 0;
	}
	if (emit_fast(s, 0, fn, site, r->sp, NULL, 0, now, &t->state) != 0)
		return 0;
	ctrace__capture_args_regs(s, r, e);
	return 1;
}

/* The flags of x's function (fn), as ctrace__function_flags() gives
 * them: kept in x for the table they were read from, so that an exit
 * makes one lookup (x's) and not two.  A published table is never
 * unmapped (filter.c), so that its address names it for good; x is
 * written only when the table changes. */
static inline __attribute__((always_inline)) uint8_t
ctrace__plan_exit_flags(const struct ctrace__plan_exit *x, uintptr_t fn)
{
	const struct ctrace__flags_table_t *tab =
		atomic_load_explicit(&ctrace__flags_table, memory_order_acquire);
	uint8_t flags;
	if (likely(plan_flags_kept(&x->flags_seen, tab, &flags)))
		return flags;
	flags = ctrace__function_flags_in(tab, fn);
	plan_flags_keep(&x->flags_seen, tab, flags);
	return flags;
}

/* The most operations an exit read this way runs: the plans of the
 * programs tried need 1 to 6; a longer list keeps the pause. */
#define CTRACE_QUICK_EXIT_OPS 8

/* An exit whose return value x reads from the exit hook's registers r,
 * on the short path: 1 when recorded, else 0 having stored nothing (the
 * caller then takes ctrace__policy_exit_read's general path).  Inline in
 * the exit hook (hooks.c), which needs no other layer for it. */
static inline __attribute__((always_inline)) int
ctrace__exit_quick(struct ctrace__thread *t, uintptr_t fn, uintptr_t site,
		   const struct ctrace__plan_exit *x,
		   const struct ctrace__regs *r)
{
	if (!ctrace__quick_gate(site) || x->nops > CTRACE_QUICK_EXIT_OPS ||
	    (x->mask & CTRACE_RETVAL_MEM))
		return 0;
	uint8_t flags = ctrace__plan_exit_flags(x, fn);
	struct ctrace__stream *s = &t->main;
	if ((flags & (CTRACE_F_SKIP | CTRACE_F_RETVAL)) != CTRACE_F_RETVAL ||
	    (size_t)(s->chunk_end - s->cur) <
		    CTRACE_MAX_EVENT_BYTES + 4 + (size_t)x->len)
		return 0;
	uint64_t now = ctrace__rdtsc();
	if (emit_fast(s, CTRACE_TAG_EXIT_BIT, fn, site, r->sp, NULL, 0, now,
		      &t->state) != 0)
		return 0;
	ctrace__retread_put(s, x, r);
	return 1;
}

/* One event, inside the recorder.  With no control asked for, straight to
 * the stream; with filters alone, one inline table lookup decides (a
 * filtered-out function costs that and nothing else); anything more goes
 * through the policy path. */
static inline __attribute__((always_inline)) void
ctrace__event_record(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
       uintptr_t site, uintptr_t sp, uintptr_t fp)
{
	uint8_t gate = atomic_load_explicit(&ctrace__gate, memory_order_relaxed);
	/* An exit's `fp` is for the policy path alone (see ctrace__event_policy()). */
	uintptr_t emit_fp = exit_bit ? 0 : fp;
	if (likely(gate == CTRACE_GATE_LIVE)) {
		emit_timed(&t->main, exit_bit, fn, site, sp, emit_fp,
			   ctrace__now(), 1, &t->state);
		return;
	}
	if (gate == (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE)) {
		uint8_t flags = exit_bit ? ctrace__function_flags(fn)
					 : ctrace__entry_flags(t, fn);
		if (flags & CTRACE_F_SKIP)
			return;
		if (!ctrace__event_more(flags, exit_bit, site)) {
			emit_timed(&t->main, exit_bit, fn, site, sp, emit_fp,
				   ctrace__now(), 1, &t->state);
			return;
		}
	}
	ctrace__event_policy(t, exit_bit, fn, site, sp, fp);
}

/* An event that found the thread not idle (its first event, the recorder
 * interrupted by a signal handler or left by a jump out of one); _regs:
 * an entry whose registers are captured.  The plain one is reached from
 * the hooks' fast path, on the stack the instrumented function was
 * called with: it aligns it (the first event opens the trace file and
 * registers the thread, in code that needs that). */
CTRACE_HIDDEN CTRACE_REALIGN void
ctrace__event_slow(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
		   uintptr_t site, uintptr_t sp, uintptr_t fp);
CTRACE_HIDDEN void ctrace__event_slow_regs(struct ctrace__thread *t,
					   uintptr_t fn, uintptr_t site,
					   const struct ctrace__regs *r);
/* The same for an exit whose return value is read at the hook (x). */
CTRACE_HIDDEN void
ctrace__event_slow_exit_regs(struct ctrace__thread *t, uintptr_t fn,
			     uintptr_t site, const struct ctrace__plan_exit *x,
			     const struct ctrace__regs *r);

/* One event from a source other than the hooks, out of line: fn and
 * site name the call, sp is the caller's stack pointer at the call (its
 * last word below holds the call's return address).  Keeps errno. */
CTRACE_HIDDEN void ctrace__event(uint8_t exit_bit, uintptr_t fn,
				 uintptr_t site, uintptr_t sp);

/* The same with a library call's values (capture.h's struct
 * ctrace__libvals: its argument registers at an entry, its return
 * registers at an exit; NULL: none), recorded when CTRACE_ARGS or
 * CTRACE_RETVAL select the slot; an event on a slow path is recorded
 * without.  ctrace__event is this without values. */
CTRACE_HIDDEN void ctrace__event_lib(uint8_t exit_bit, uintptr_t fn,
				     uintptr_t site, uintptr_t sp,
				     const struct ctrace__libvals *v);

/* A library call not recorded, as the list of calls waiting to return
 * (retval.c) had no room for it: counted lost (CTRACE_LOST_RETURNS), in
 * the thread's stream when its recorder is idle, else in the file's
 * total alone; not while recording is switched off. */
CTRACE_HIDDEN void ctrace__event_refused(void);

/* A library call that may have loaded modules (dlopen, plt.c) returned:
 * the loader's list is looked at now, new modules recorded and their
 * library-call slots redirected (modules.c), before its caller can call
 * into them (the hooks look only after a pause: emit.h, after_gap).
 * Keeps errno. */
CTRACE_HIDDEN void ctrace__event_loaded(void);

#endif /* CTRACE_EVENT_H */
