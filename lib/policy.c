/* policy.c -- the hooks' path when the program asked for any control:
 * filters, a depth limit, a duration threshold, tracing switched off (by
 * API, CTRACE_START=off or CTRACE_SIGNAL), or a live callback.
 *
 * The plain hot path (hooks.c) keeps no per-call state.  This one keeps a
 * shadow stack per thread, one frame per instrumented call, so that an
 * exit is recorded exactly when its entry was, whatever changed in
 * between, and so that a call shorter than the threshold can be taken back
 * out of the buffer when it returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "capture.h"
#include "event.h"
#include "emit.h"
#include "retval.h"
#include "state.h"

ctrace_callback_fn ctrace__callback;
void *ctrace__callback_data;

/* ---------------------------------------------------------------------------
 * Shadow stack
 * ------------------------------------------------------------------------ */

/* An open frame is gone when a new call is made above its stack pointer,
 * or at it from another call site: at the same pointer and site, the new
 * call is a function inlined into the open one (its hooks run in the
 * caller's frame, with the caller's return address). */
static int gone(const struct ctrace__frame *f, uintptr_t sp, uintptr_t site)
{
	return f->sp < sp || (f->sp == sp && f->site != site);
}

static struct ctrace__frame *push(struct ctrace__thread *t, uintptr_t fn,
				  uintptr_t site, uintptr_t sp)
{
	/* A call at or above the stack pointer of an open frame means that
	 * frame is gone (longjmp, an exception).  A stack pointer above the
	 * outermost frame is another stack (sigaltstack): keep everything. */
	if (t->depth > 0 && sp < t->stack[0].sp)
		while (t->depth > 0 && gone(&t->stack[t->depth - 1], sp, site))
			t->recorded -= t->stack[--t->depth].recorded;

	if (t->depth == t->capacity) {
		size_t cap = t->capacity ? t->capacity * 2 : 4096;
		void *m = t->stack == NULL
			? mmap(NULL, cap * sizeof *t->stack,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
			: mremap(t->stack, t->capacity * sizeof *t->stack,
				 cap * sizeof *t->stack, MREMAP_MAYMOVE);
		if (m == MAP_FAILED)
			return NULL;
		t->stack = m;
		t->capacity = cap;
	}
	struct ctrace__frame *f = &t->stack[t->depth++];
	f->fn = fn;
	f->site = site;
	f->sp = sp;
	f->recorded = 0;
	return f;
}

/* The open frame of `fn`, frames above it dropped (their exits were
 * skipped); NULL if it was entered before the shadow stack was kept. */
static struct ctrace__frame *pop(struct ctrace__thread *t, uintptr_t fn)
{
	size_t i = t->depth;
	while (i > 0 && t->stack[i - 1].fn != fn)
		i--;
	if (i == 0)
		return NULL;
	while (t->depth > i)
		t->recorded -= t->stack[--t->depth].recorded;
	t->depth--;
	return &t->stack[i - 1];
}

/* ---------------------------------------------------------------------------
 * Recording
 * ------------------------------------------------------------------------ */

static int recording(const struct ctrace__thread *t, uint8_t gate)
{
	return !(gate & CTRACE_GATE_OFF) && !t->thread_off;
}

static void notify(struct ctrace__thread *t, int kind, uintptr_t fn,
		   uintptr_t site, uint64_t now, size_t depth)
{
	struct ctrace_event ev = {
		.kind = kind,
		.function = (void *)fn,
		.call_site = (void *)site,
		.time_ns = ctrace__clock_ticks_to_ns(ctrace__file.header, now),
		.thread = t->main.thread,
		.depth = (unsigned)depth,
	};
	ctrace_callback_fn cb = ctrace__callback;
	if (cb == NULL)
		return;
	/* Instrumented code the callback runs is not recorded; what it does
	 * to errno must not reach the program. */
	int saved_errno = errno;
	uint8_t state = t->state;
	t->state = CTRACE_T_CALLBACK;
	cb(&ev, ctrace__callback_data);
	t->state = state;
	errno = saved_errno;
}

/* Takes a short call back out of the buffer: it is the last thing in the
 * stream, so zero it (tag first, for a concurrent reader) and restore the
 * state from before it. */
static void rewind_call(struct ctrace__stream *s, const struct ctrace__frame *f)
{
	uint8_t *p = f->pos;
	unsigned low = p[0] & 0x7fu;
	if (low == CTRACE_TAG_NEW || low >= CTRACE_TAG_WIDE_MOVE) {
		/* The ENTRY changed the table, which the reader will not
		 * see (it was the last event to change it, a NEW or a move
		 * out of a wide slot, whose changes s->miss_slot, miss_home
		 * and moved_home name): the recorder
		 * forgets the pairs it put in, in the narrow slot it took and
		 * in the wide slots of the pair's home and of that slot's
		 * previous pair, and gives the slot back its previous home,
		 * which the reader's table still has (the pair the reader
		 * holds there goes to that home's wide slot when the slot is
		 * taken again, see pair_move_in); the bases of the next NEW
		 * go back to what they were before it. */
		unsigned slot = s->miss_slot;
		if (slot != 0) {
			memset(&s->pair[slot], 0, sizeof s->pair[0]);
			s->home[slot] = s->moved_home;
		}
		if (s->wide != NULL) {
			memset(&s->wide[s->miss_home], 0, sizeof s->wide[0]);
			memset(&s->wide[s->moved_home], 0, sizeof s->wide[0]);
		}
		s->new_base = f->prev_base;
		/* And forgets every pair, as after a pause (after_gap): the
		 * events after it define again what they use.  Restoring
		 * the slots alone was not enough where the rewound ENTRY was
		 * not the last change to the table the reader would carry
		 * into the next chunk (pair slot used before its definition
		 * there, with recursion and CTRACE_MIN_DURATION); a few NEWs
		 * more after each short first call of a pair is the price. */
		ctrace__pairs_reset(s);
	}
	/* The ENTRY opened a call, the innermost one still (nothing was
	 * written since): closed again.  When the window was full it had
	 * pushed the oldest call out, which stays out: the reader keeps
	 * it, and never needs it. */
	s->open_top--;
	if (s->open_n)
		s->open_n--;
	/* Its ARGS record, gone with it, may have moved the registers'
	 * bases, which the reader's no longer match. */
	s->arg_base_off = 1;
	p[0] = 0;
	ctrace__barrier();
	memset(p + 1, 0, (size_t)(f->end - p - 1));
	s->cur = p;
	s->last = f->prev_last;
	s->last_sp = f->prev_sp;
}

/* regs: an instrumented function's entry registers when values are
 * captured; lv: a library call's (plt.c), whose ARGS record follows its
 * ENTRY as the instrumented functions' does. */
static inline __attribute__((always_inline)) void
policy_enter(struct ctrace__thread *t, uintptr_t fn, uintptr_t site,
	     uintptr_t sp, uintptr_t fp, const struct ctrace__regs *regs,
	     const struct ctrace__libvals *lv)
{
	uint8_t gate = atomic_load_explicit(&ctrace__gate, memory_order_relaxed);
	if (unlikely(!(gate & CTRACE_GATE_LIVE))) {
		ctrace__fork_unseen();
		return;
	}
	uint8_t flags = (gate & CTRACE_GATE_TABLE) ? ctrace__entry_flags(t, fn)
						   : 0;
	/* Filters alone decide by address, entry and exit alike: no shadow
	 * stack, so a filtered-out function costs one table lookup. */
	/* A return value read at the exits asks nothing of the entry. */
	if (flags & CTRACE_F_RETREAD)
		flags &= (uint8_t)~CTRACE_F_RETVAL;
	if (gate == (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE) &&
	    !(flags & (CTRACE_F_ARGS | CTRACE_F_RETVAL))) {
		if (!(flags & CTRACE_F_SKIP))
			emit_timed(&t->main, 0, fn, site, sp, fp,
				   ctrace__now(), 1, &t->state);
		return;
	}
	/* Capture with filters alone needs no shadow stack either: nothing
	 * can switch recording between an entry and its exit. */
	struct ctrace__frame *f = NULL;
	if (gate != (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE)) {
		f = push(t, fn, site, sp);
		if (f == NULL || (flags & CTRACE_F_SKIP) ||
		    !recording(t, gate) ||
		    (ctrace__state_max_depth &&
		     t->recorded >= ctrace__state_max_depth))
			return;
	} else if (flags & CTRACE_F_SKIP) {
		return;
	}

	struct ctrace__stream *s = &t->main;
	uint8_t capture = regs != NULL ? flags & (CTRACE_F_ARGS |
						  CTRACE_F_RETVAL) : 0;
	uint8_t lib = lv != NULL ? flags & CTRACE_F_ARGS : 0;
	/* The ENTRY's time comes before the recorder's work for it (where
	 * the values lie, room for the ARGS record in the ENTRY's chunk, the
	 * event's slow path, the values copied), which a PAUSE record after
	 * them tells (pause_put): a call's duration never holds it. */
	uint64_t now = ctrace__now();
	struct ctrace__capture_where where;
	if (capture)
		ctrace__capture_locate(&where, fn, regs);
	if (lib)
		ctrace__capture_lib_ready();
	int refilled = s->cur >= s->limit ||
		       ((capture || lib) && (size_t)(s->chunk_end - s->cur) <
						    CTRACE_MAX_EVENT_BYTES +
							    ctrace__args_max_bytes);
	if (refilled && ctrace__stream_refill(s, now) == NULL) {
		ctrace__stream_lost(s, now, 0);
		t->state = CTRACE_T_SETTLED;
		return;
	}
	/* Only work that a call's time must not hold is timed (see struct
	 * ctrace__capture_where): the event's slow path, a chunk claimed, a
	 * library call's values, a capture that says so. */
	int timed = refilled || lib || (capture && where.timed);
	/* Registers alone go inside the ENTRY's group (format 6). */
	struct ctrace__args_inline a, *args = NULL;
	if ((capture & CTRACE_F_ARGS) && where.ready &&
	    ctrace__args_inline_ok(where.plan, regs)) {
		a.r = regs;
		a.sel = where.plan->regs_sel;
		args = &a;
		capture &= (uint8_t)~CTRACE_F_ARGS;
	}
	if (f == NULL) {
		int how = emit(s, 0, fn, site, sp, args, fp, now, 1,
			       &t->state);
		if (capture)
			ctrace__capture_entry(s, capture, fn, site, regs,
					      &where);
		if (lib)
			ctrace__capture_lib_args(s, fn, site, sp, lv);
		if (timed || how)
			pause_put(s, now, 0, CTRACE_PAUSE_MIN_TICKS,
				  capture || args ? CTRACE_PAUSE_DRAIN_TICKS
						  : CTRACE_PAUSE_NO_DRAIN);
		return;
	}
	f->pos = s->cur;
	f->chunk = s->chunk;
	f->prev_last = s->last;
	f->prev_sp = s->last_sp;
	f->prev_base = s->new_base;
	f->paused = s->paused;
	int how = emit(s, 0, fn, site, sp, args, fp, now, 1, &t->state);
	/* the ENTRY's time (later than now if the clock went back) */
	f->ticks = s->cur != f->pos ? s->last : now;
	if (capture)
		ctrace__capture_entry(s, capture, fn, site, regs, &where);
	if (lib)
		ctrace__capture_lib_args(s, fn, site, sp, lv);
	if (timed || how)
		pause_put(s, now, 0, CTRACE_PAUSE_MIN_TICKS,
			  capture || args ? CTRACE_PAUSE_DRAIN_TICKS
					  : CTRACE_PAUSE_NO_DRAIN);
	f->end = s->cur;
	f->recorded = 1;
	t->recorded++;
	if (gate & CTRACE_GATE_CALLBACK)
		notify(t, CTRACE_EVENT_ENTRY, fn, site, now, t->recorded - 1);
}

void ctrace__policy_enter(struct ctrace__thread *t, uintptr_t fn,
			  uintptr_t site, uintptr_t sp, uintptr_t fp)
{
	policy_enter(t, fn, site, sp, fp, NULL, NULL);
}

void ctrace__policy_lib_enter(struct ctrace__thread *t, uintptr_t fn,
			      uintptr_t site, uintptr_t sp,
			      const struct ctrace__libvals *v)
{
	policy_enter(t, fn, site, sp, 0, NULL, v);
}

/* ---------------------------------------------------------------------------
 * Captured calls: the common case
 * ------------------------------------------------------------------------ */

/* Most captured events are alike: filters alone (no shadow stack), the
 * clock the TSC, the function's plan entry naming registers alone (no
 * memory read) or its return value read at the exit by a few operations
 * over the saved registers (no trampoline, no list), the pair in the
 * table and room in the chunk.  Such an event is its record and the
 * values' few stores after it, work as bounded as an ENTRY's own and done
 * in every such call alike: like the plain hooks' (hooks.c), it is not
 * timed, which took a fenced clock read per event, 42 to 47 ns a call
 * with both values.  Anything else (a first call, a plan without the
 * function, memory or strings to read, a trampoline, a full chunk)
 * takes the general path, whose work a PAUSE record takes out of the
 * durations.  These return 1 when the event is recorded, else 0 having
 * stored nothing.  They are ctrace__enter_quick and ctrace__exit_quick
 * (event.h), inline in the hooks, which call the general paths below
 * when they decline. */

void ctrace__policy_enter_regs(struct ctrace__thread *t, uintptr_t fn,
			       uintptr_t site, uintptr_t sp,
			       const struct ctrace__regs *r)
{
	/* A copy inlined into a frame whose return address was replaced
	 * reads the trampoline as its call site: the real one is kept. */
	if (unlikely(site == (uintptr_t)ctrace__retval_trampoline))
		site = ctrace__retval_real(sp);
	policy_enter(t, fn, site, sp, CTRACE_REGS_FP(r), r, NULL);
}

/* lv: a library call's return registers (plt.c), written in a filled
 * RETVAL record after its EXIT. */
/* The patched frames an exit may look through untimed: the one above
 * it, and a few a jump left (retval.c's pending()). */
#define SCANNED_UNTIMED 4

static inline __attribute__((always_inline)) void
policy_exit(struct ctrace__thread *t, uintptr_t fn, uintptr_t site,
	    uintptr_t sp, uintptr_t frame_sp, const struct ctrace__libvals *lv,
	    const struct ctrace__plan_exit *x, const struct ctrace__regs *regs)
{
	uint8_t gate = atomic_load_explicit(&ctrace__gate, memory_order_relaxed);
	if (unlikely(!(gate & CTRACE_GATE_LIVE))) {
		ctrace__fork_unseen();
		return;
	}
	uint8_t flags = (gate & CTRACE_GATE_TABLE) ? ctrace__function_flags(fn)
						   : 0;
	if (gate == (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE)) {
		if (flags & CTRACE_F_SKIP)
			return;
		/* Only a return value asks more of the exit than its EXIT;
		 * in a patched frame (an inlined copy's exit) the call site
		 * is the real return address, as at its entry. */
		if (!(flags & CTRACE_F_RETVAL)) {
			if (unlikely(site ==
				     (uintptr_t)ctrace__retval_trampoline))
				site = ctrace__retval_real(
					frame_sp != 0
						? frame_sp - sizeof(uintptr_t)
						: sp);
			emit_timed(&t->main, CTRACE_TAG_EXIT_BIT, fn, site, sp,
				   0, ctrace__now(), 1, &t->state);
			return;
		}
	}
	/* The value read now, where the plan says it is: the function's
	 * entry set no trampoline (its exits all have a line). */
	int patched = site == (uintptr_t)ctrace__retval_trampoline;
	const struct ctrace__plan_exit *read =
		x != NULL && !patched && (flags & CTRACE_F_RETVAL) ? x : NULL;
	/* The EXIT's time comes before the recorder's work for it (the
	 * patched frame looked up, the shadow stack popped, room made, the
	 * event's slow path, the value read), which a PAUSE record after it
	 * tells: neither the call's duration nor its caller's holds it. */
	uint64_t now = ctrace__now();
	/* A patched return address: the frame waiting for its RETVAL, and
	 * the real return address (the hook may be given the trampoline). */
	uintptr_t real = 0;
	size_t retval_bytes = 0;
	/* Given the trampoline, the frame is patched for sure: its slot may
	 * lie farther above the hook than a stack's reach (a big frame).
	 * The frame is searched from the hook's return address slot, not
	 * from the hook's stack pointer: callees a longjmp left may have
	 * patched slots between the two that still hold the trampoline (the
	 * hook's frame need not overwrite them), and would be taken for the
	 * function's frame.  That slot is the function's own when it jumps
	 * to the hook (a tail call), else it holds a return address into
	 * the function: no patched frame lies below it. */
	uintptr_t from = frame_sp != 0 ? frame_sp - sizeof(uintptr_t) : sp;
	if (read != NULL)
		retval_bytes = 4 + read->len;
	size_t scanned = 0;
	struct ctrace__tramp_entry *pending =
		ctrace__state_capture_on && lv == NULL && read == NULL
			? ctrace__retval_pending(fn, from, patched, &real,
						 &retval_bytes, &scanned)
			: NULL;
	/* A library call's trampoline has its registers: no reservation. */
	uint8_t lib = lv != NULL && (flags & CTRACE_F_RETVAL);
	if (lib)
		retval_bytes = CTRACE_LIBRET_BYTES;
	if (unlikely(patched))
		site = real;
	/* No patched frame, but room asked for: the frame may be one the
	 * full list left unpatched, whose value is then said to be lost. */
	if (unlikely(pending == NULL && retval_bytes != 0) && !lib &&
	    read == NULL && !(flags & CTRACE_F_RETVAL))
		retval_bytes = 0;
	struct ctrace__frame *f = NULL;
	if (gate != (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE)) {
		f = pop(t, fn);
		if (f != NULL) {
			if (!f->recorded)
				return;
			t->recorded--;
		} else if (flags & CTRACE_F_SKIP) {
			return;
		}
	}
	/* A call missing from the shadow stack was entered before anything
	 * could switch recording off (that keeps the stack from then on),
	 * so its entry was recorded: so is its exit. */

	/* The call's own time: without the recorder's pauses since its
	 * ENTRY was timed (its own first, a leaf has no callees). */
	struct ctrace__stream *s = &t->main;
	if (f != NULL && now - f->ticks - (s->paused - f->paused) <
				 ctrace__state_min_ticks &&
	    s->cur == f->end && s->chunk == f->chunk && s->cur != NULL) {
		/* The PAUSE records rewound with it are the recorder's work
		 * still: they go into the one that follows. */
		uint64_t rewound = s->paused - f->paused;
		rewind_call(s, f);
		s->paused = f->paused;
		pause_put(s, now, rewound, CTRACE_PAUSE_MIN_TICKS,
			  CTRACE_PAUSE_NO_DRAIN);
		return;
	}
	/* Reserve the RETVAL record right after the EXIT, in the same
	 * chunk, for the trampoline to fill. */
	int refilled = retval_bytes != 0 && s->cur != NULL &&
		       (size_t)(s->chunk_end - s->cur) <
			       CTRACE_MAX_EVENT_BYTES + retval_bytes;
	if (refilled && ctrace__stream_refill(s, now) == NULL) {
		ctrace__stream_lost(s, now, 0);
		t->state = CTRACE_T_SETTLED;
		return;
	}
	int how = emit(s, CTRACE_TAG_EXIT_BIT, fn, site, sp, NULL, 0, now, 1,
		       &t->state);
	if (lib)
		ctrace__capture_lib_ret(s, lv, sp);
	else if (read != NULL)
		ctrace__retread_put(s, read, regs);
	else if (pending != NULL)
		ctrace__retval_reserve(s, pending);
	else if (unlikely(retval_bytes != 0))
		ctrace__retval_mark_refused(s);
	/* Timed as an entry's capture is (policy_enter): not the value read
	 * or its record reserved, which every call of the function does
	 * alike, but a slow path, a chunk claimed, a library call's value,
	 * the patched frames searched through (for a frame given the
	 * trampoline, or past the few that lie above the exit), and the
	 * shadow stack's pop (which may drop frames a jump left). */
	if (how || refilled || lib || patched || scanned > SCANNED_UNTIMED ||
	    f != NULL)
		pause_put(s, now, 0, CTRACE_PAUSE_MIN_TICKS,
			  CTRACE_PAUSE_NO_DRAIN);
	if (gate & CTRACE_GATE_CALLBACK)
		notify(t, CTRACE_EVENT_EXIT, fn, site, now, t->recorded);
}

void ctrace__policy_exit(struct ctrace__thread *t, uintptr_t fn,
			 uintptr_t site, uintptr_t sp, uintptr_t frame_sp)
{
	policy_exit(t, fn, site, sp, frame_sp, NULL, NULL, NULL);
}

void ctrace__policy_exit_read(struct ctrace__thread *t, uintptr_t fn,
			      uintptr_t site, uintptr_t sp,
			      const struct ctrace__plan_exit *x,
			      const struct ctrace__regs *r)
{
	policy_exit(t, fn, site, sp, sp, NULL, x, r);
}

void ctrace__policy_lib_exit(struct ctrace__thread *t, uintptr_t fn,
			     uintptr_t site, uintptr_t sp,
			     const struct ctrace__libvals *v)
{
	policy_exit(t, fn, site, sp, 0, v, NULL, NULL);
}
