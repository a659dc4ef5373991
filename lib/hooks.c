/* hooks.c -- __cyg_profile_func_enter/exit: the recorder's hot path.
 *
 * An event costs: one clock read, a hash of (function, call site) into
 * the stream's pair table, and two or three byte stores.  There is no
 * lock, no system call, no allocation and no branch that is not predicted
 * in the steady state.  Everything else (the first event of a thread, a
 * full chunk, a new pair, a signal handler that interrupted the recorder)
 * takes a slow path out of line.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "capture.h"
#include "emit.h"
#include "state.h"

/* ---------------------------------------------------------------------------
 * Slow path
 * ------------------------------------------------------------------------ */

static struct ctrace__stream *signal_stream(struct ctrace__thread *t)
{
	if (t->signal == NULL) {
		void *m = mmap(NULL, sizeof *t->signal, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		ctrace__stream_init(m, CTRACE_CHUNK_SIGNAL, t->main.thread,
				    t->main.tid);
		t->signal = m;
	}
	return t->signal;
}

/* For an exit, `fp` is the exit hook's CFA: return value capture tells the
 * function's own frame by it from those of callees a longjmp abandoned
 * below it. */
static inline void policy(struct ctrace__thread *t, uint8_t exit_bit,
			  uintptr_t fn, uintptr_t site, uintptr_t sp,
			  uintptr_t fp)
{
	if (exit_bit)
		ctrace__policy_exit(t, fn, site, sp, fp);
	else
		ctrace__policy_enter(t, fn, site, sp, fp);
}

static inline __attribute__((always_inline)) void
record(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
       uintptr_t site, uintptr_t sp, uintptr_t fp);

/* Below the stack pointer a hook was entered with, a signal handler's
 * frames start at least this far down (the kernel's signal frame, with
 * the FPU state, is larger); a hook nearer than that, or above, is not in
 * a handler on that stack. */
#define CTRACE_SIGNAL_FRAME_MIN ((uintptr_t)512)

/* A hook found the thread inside the recorder: true if the recorder is no
 * longer running (a handler that interrupted it left with siglongjmp),
 * false if this runs in a handler nested in it.  A handler on an
 * alternate stack may lie anywhere: sigaltstack tells, and is asked only
 * when the stack pointers alone say the recorder was left. */
static int recorder_left(const struct ctrace__thread *t, uintptr_t sp)
{
	if (sp == 0 || sp + CTRACE_SIGNAL_FRAME_MIN <= t->busy_sp)
		return 0;
	stack_t ss;
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK))
		return 0;
	return 1;
}

/* Puts a stream left by a jump back in order and counts the event the
 * jump abandoned.  emit() stores the event's tag, then `settled`, then
 * the stream's state; the records that follow an event (ARGS, RETVAL)
 * store their tag before the stream's state too, and a chunk is claimed
 * with signals blocked.  So at cur lies a zero byte, and the event is
 * lost unless `settled` says it was stored (or counted lost) already; or
 * a whole group, the event or a record after it, stored but not in the
 * stream's state (its time and stack bases): either way the stream moves
 * to a new chunk.  Bytes the abandoned writer left after cur are cleared:
 * a reader must find zeros after the last group.  The pairs may hold one
 * not defined: all are defined again. */
static void recover_stream(struct ctrace__stream *s, uint64_t now, int settled)
{
	ctrace__pairs_reset(s);
	if (s->cur != NULL && s->cur < s->chunk_end) {
		if (*s->cur != 0) {
			ctrace__stream_release(s);
			return;
		}
		size_t dirty = CTRACE_MAX_EVENT_BYTES + ctrace__args_max_bytes;
		if (dirty > (size_t)(s->chunk_end - s->cur))
			dirty = (size_t)(s->chunk_end - s->cur);
		memset(s->cur, 0, dirty);
		/* The abandoned event may have changed the table (a pair
		 * moved, a narrow slot's home) for a tag the reader never
		 * sees: the stream goes on in a chunk that starts afresh. */
		if (!settled)
			ctrace__stream_release(s);
	}
	if (!settled)
		ctrace__stream_lost(s, now, CTRACE_LOST_JUMPED);
}

static void recover(struct ctrace__thread *t, uint64_t now)
{
	recover_stream(&t->main, now, t->state == CTRACE_T_SETTLED);
	if (t->signal_busy && t->signal != NULL)
		recover_stream(t->signal, now,
			       t->signal_busy == CTRACE_T_SETTLED);
	t->signal_busy = 0;
}

/* `r`: an entry's registers when values are captured (else NULL), which
 * the thread's first event needs as much as any: a program whose first
 * instrumented call is main shows main's arguments. */
static __attribute__((noinline)) void
hook_slow(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
	  uintptr_t site, uintptr_t sp, uintptr_t fp,
	  const struct ctrace__regs *r)
{
	int saved_errno = errno;

	switch (t->state) {
	case CTRACE_T_NEW:
		ctrace__thread_start(t);
		if (t->state != CTRACE_T_IDLE)
			break;
		ctrace__capture_setup();
		t->busy_sp = sp;
		ctrace__barrier();
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		if (r != NULL)
			ctrace__policy_enter_regs(t, fn, site, sp, r);
		else if (atomic_load_explicit(&ctrace__gate,
					      memory_order_relaxed) !=
			 CTRACE_GATE_LIVE)
			policy(t, exit_bit, fn, site, sp, fp);
		else
			emit(&t->main, exit_bit, fn, site, sp, fp,
			     ctrace__now(), 1, &t->state);
		ctrace__barrier();
		t->state = CTRACE_T_IDLE;
		break;

	case CTRACE_T_IDLE:
		/* The hook read the state busy, left by a jump, and a signal
		 * handler that came before this switch recovered (below):
		 * the event is recorded, not dropped. */
	case CTRACE_T_BUSY:
	case CTRACE_T_SETTLED: {
		uint64_t now = ctrace__now();
		if (t->state == CTRACE_T_IDLE || recorder_left(t, sp)) {
			/* busy_sp first: a handler that comes from here on
			 * finds the recorder live and leaves the main stream
			 * alone.  One that came before it may have found the
			 * jump too and recovered: then the state is idle. */
			t->busy_sp = sp;
			ctrace__barrier();
			if (t->state != CTRACE_T_IDLE)
				recover(t, now);
			t->state = CTRACE_T_BUSY;
			ctrace__barrier();
			if (r != NULL)
				ctrace__policy_enter_regs(t, fn, site, sp, r);
			else
				record(t, exit_bit, fn, site, sp, fp);
			ctrace__barrier();
			t->state = CTRACE_T_IDLE;
			break;
		}
		/* A signal handler interrupted the recorder on this thread: its
		 * events go to the thread's signal stream, merged back by time
		 * when the trace is read.  A signal inside that one is counted,
		 * not stored. */
		uint8_t gate = atomic_load_explicit(&ctrace__gate,
						    memory_order_relaxed);
		/* A child made by _Fork in a handler that interrupted the
		 * recorder: it says so as any other such child does. */
		if (!(gate & CTRACE_GATE_LIVE))
			ctrace__fork_unseen();
		if (!(gate & CTRACE_GATE_LIVE) || (gate & CTRACE_GATE_OFF) ||
		    t->thread_off ||
		    ((gate & CTRACE_GATE_TABLE) &&
		     (ctrace__function_flags(fn) & CTRACE_F_SKIP)))
			break;
		if (t->signal_busy) {
			ctrace__stream_lost(&t->main, now, CTRACE_LOST_NESTED);
			break;
		}
		t->signal_busy = 1;
		ctrace__barrier();
		struct ctrace__stream *s = signal_stream(t);
		if (s != NULL)
			emit(s, exit_bit, fn, site, sp, fp, now, 0,
			     &t->signal_busy);
		else {
			ctrace__stream_lost(&t->main, now,
					    CTRACE_LOST_NO_MEMORY);
			t->signal_busy = CTRACE_T_SETTLED;
		}
		ctrace__barrier();
		t->signal_busy = 0;
		break;
	}

	default: /* CTRACE_T_OFF, CTRACE_T_CALLBACK */
		break;
	}
	errno = saved_errno;
}

/* ---------------------------------------------------------------------------
 * The hooks
 * ------------------------------------------------------------------------ */

/* One event, inside the recorder.  With no control asked for, straight to
 * the stream; with filters alone, one inline table lookup decides (a
 * filtered-out function costs that and nothing else); anything more goes
 * through the policy path. */
static inline __attribute__((always_inline)) void
record(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
       uintptr_t site, uintptr_t sp, uintptr_t fp)
{
	uint8_t gate = atomic_load_explicit(&ctrace__gate, memory_order_relaxed);
	/* An exit's `fp` is for the policy path alone (see policy()). */
	uintptr_t emit_fp = exit_bit ? 0 : fp;
	if (likely(gate == CTRACE_GATE_LIVE)) {
		emit(&t->main, exit_bit, fn, site, sp, emit_fp, ctrace__now(),
		     1, &t->state);
		return;
	}
	if (gate == (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE)) {
		uint8_t flags = ctrace__function_flags(fn);
		if (flags & CTRACE_F_SKIP)
			return;
		if (!(flags & (CTRACE_F_ARGS | CTRACE_F_RETVAL))) {
			emit(&t->main, exit_bit, fn, site, sp, emit_fp,
			     ctrace__now(), 1, &t->state);
			return;
		}
	}
	policy(t, exit_bit, fn, site, sp, fp);
}

/* Each hook goes idle, then leaves busy_sp as it found it.  A signal handler whose
 * instrumented code runs between a hook's store of busy_sp and that of
 * the state finds the thread idle and records on this path; had it left
 * its own stack pointer in busy_sp, the hook would go busy with it, and
 * a second handler during the same event, at the first one's depth,
 * would take the live recorder for one left by a jump and recover under
 * it: the event counted lost and written over the handler's events, the
 * chunk given back under the writer.  The out-of-line paths below take
 * `outer` along (the hooks reach them by a tail call, keeping nothing). */
static inline __attribute__((always_inline)) void
hook_done(struct ctrace__thread *t, uintptr_t outer)
{
	ctrace__barrier();
	t->state = CTRACE_T_IDLE;
	ctrace__barrier();
	t->busy_sp = outer;
}

/* What a hook does inside the recorder when its event is not emit_fast()'s
 * common case.  Out of line and called last, so that no register is kept
 * across a call on the hooks' common path: the compiler makes these tail
 * calls, and the event's slow path runs in their one frame. */
static __attribute__((noinline)) void
enter_rest(uintptr_t fn, uintptr_t site, uintptr_t sp, uintptr_t fp,
	   uint64_t now, uintptr_t outer)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	emit_rest_body(emit_how(&t->main, 0, sp, now), &t->main, 0, fn, site,
		       sp, fp, now, 1, &t->state);
	hook_done(t, outer);
}

static __attribute__((noinline)) void
exit_rest(int how, uintptr_t fn, uintptr_t site, uintptr_t sp, uint64_t now,
	  uintptr_t outer)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	emit_rest_body(how, &t->main, CTRACE_TAG_EXIT_BIT, fn, site, sp, 0,
		       now, 1, &t->state);
	hook_done(t, outer);
}

/* The same when the gate asks for more than a filter (control, capture,
 * depth) or the clock is not the TSC (a call to read it). */
static __attribute__((noinline)) void
record_rest(uint8_t exit_bit, uintptr_t fn, uintptr_t site, uintptr_t sp,
	    uintptr_t fp, uintptr_t outer)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	record(t, exit_bit, fn, site, sp, fp);
	hook_done(t, outer);
}

/* With filters alone, what record() decides, inline in the hooks: 1 to
 * record the event as with no control at all, 0 to skip it (a function
 * filtered out costs this lookup and nothing else), -1 for the rest
 * (record_rest). */
static inline __attribute__((always_inline)) int table_go(uint8_t gate,
							  uintptr_t fn)
{
	if (gate != (CTRACE_GATE_LIVE | CTRACE_GATE_TABLE))
		return -1;
	uint8_t flags = ctrace__function_flags(fn);
	if (flags & CTRACE_F_SKIP)
		return 0;
	return flags & (CTRACE_F_ARGS | CTRACE_F_RETVAL) ? -1 : 1;
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
		int go = table_go(gate, fn);
		if (go <= 0) {
			if (go < 0)
				record_rest(exit_bit, fn, site, sp, fp, outer);
			else
				hook_done(t, outer);
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
	struct ctrace__thread *t = &ctrace__state_tls;
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t sp = CTRACE_CALLER_SP(), outer = t->busy_sp;
		t->busy_sp = sp;
		ctrace__barrier();
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		if (!hook_gate(t, 0, (uintptr_t)fn, (uintptr_t)site, sp, fp,
			       outer))
			return;
		uint64_t now = ctrace__rdtsc();
		int how = emit_fast(&t->main, 0, (uintptr_t)fn,
				    (uintptr_t)site, sp, now, &t->state);
		if (unlikely(how != 0)) {
			enter_rest((uintptr_t)fn, (uintptr_t)site, sp, fp, now,
				   outer);
			return;
		}
		hook_done(t, outer);
		return;
	}
	if (t->state != CTRACE_T_OFF)
		hook_slow(t, 0, (uintptr_t)fn, (uintptr_t)site,
			  CTRACE_CALLER_SP(), fp, NULL);
}

void ctrace__hook_enter_regs(void *fn, void *site,
			     const struct ctrace__regs *r)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t outer = t->busy_sp;
		t->busy_sp = r->sp;
		ctrace__barrier();
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		ctrace__policy_enter_regs(t, (uintptr_t)fn, (uintptr_t)site,
					  r->sp, r);
		hook_done(t, outer);
		return;
	}
	if (t->state != CTRACE_T_OFF)
		hook_slow(t, 0, (uintptr_t)fn, (uintptr_t)site, r->sp,
			  CTRACE_REGS_FP(r), r);
}

__attribute__((visibility("default"))) void
__cyg_profile_func_exit(void *fn, void *site)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t sp = ctrace__sp(), outer = t->busy_sp;
		t->busy_sp = sp;
		ctrace__barrier();
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		/* For the policy path alone (see policy()). */
		uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
		if (!hook_gate(t, CTRACE_TAG_EXIT_BIT, (uintptr_t)fn,
			       (uintptr_t)site, sp, cfa, outer))
			return;
		uint64_t now = ctrace__rdtsc();
		int how = emit_fast(&t->main, CTRACE_TAG_EXIT_BIT,
				    (uintptr_t)fn, (uintptr_t)site, sp, now,
				    &t->state);
		if (unlikely(how != 0)) {
			exit_rest(how, (uintptr_t)fn, (uintptr_t)site, sp,
				  now, outer);
			return;
		}
		hook_done(t, outer);
		return;
	}
	if (t->state != CTRACE_T_OFF)
		hook_slow(t, CTRACE_TAG_EXIT_BIT, (uintptr_t)fn,
			  (uintptr_t)site, ctrace__sp(),
			  (uintptr_t)__builtin_dwarf_cfa(), NULL);
}
