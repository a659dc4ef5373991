/* event.c -- the recorder's entry point out of line (event.h): the slow
 * path of an event (a thread's first, one inside the recorder), and the
 * whole event for sources other than the hooks (plt.c).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "event.h"

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
	/* An abandoned ARGS_SHORT may have moved the registers' bases for a
	 * record the reader never sees: unused up to the next chunk. */
	s->arg_base_off = 1;
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

/* A library call's event inside the recorder (ctrace__event_lib): its
 * values `v` (NULL: none saved) through the policy path when its slot's
 * flags ask for them, else recorded as any event. */
static inline __attribute__((always_inline)) void
lib_record(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
	   uintptr_t site, uintptr_t sp, const struct ctrace__libvals *v)
{
	uint8_t gate = atomic_load_explicit(&ctrace__gate, memory_order_relaxed);
	if (v != NULL && (gate & CTRACE_GATE_TABLE) &&
	    (ctrace__function_flags(fn) & (CTRACE_F_ARGS | CTRACE_F_RETVAL))) {
		if (exit_bit)
			ctrace__policy_lib_exit(t, fn, site, sp, v);
		else
			ctrace__policy_lib_enter(t, fn, site, sp, v);
	} else {
		ctrace__event_record(t, exit_bit, fn, site, sp, 0);
	}
}

/* `r`: an entry's registers when values are captured (else NULL), which
 * the thread's first event needs as much as any: a program whose first
 * instrumented call is main shows main's arguments.  `lib`: a library
 * call's event, with its values `lv` (NULL: none saved), which a
 * thread's first event records as any other (lib_record). */
static inline __attribute__((always_inline)) void
event_slow(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
	  uintptr_t site, uintptr_t sp, uintptr_t fp,
	  const struct ctrace__regs *r, const struct ctrace__plan_exit *x,
	  int lib, const struct ctrace__libvals *lv)
{
	/* A thread's first event: the recorder's library calls (errno's
	 * address too) go straight on, as plt.c lets a new thread's through
	 * (its first event may be a library call). */
	int first = t->state == CTRACE_T_NEW;
	if (first)
		ctrace__state_self++;
	ctrace__barrier(); /* __errno_location is `const`: not before */
	int saved_errno = errno;

	switch (t->state) {
	case CTRACE_T_NEW: {
		ctrace__thread_start(t);
		if (t->state != CTRACE_T_IDLE)
			break;
		ctrace__capture_setup();
		t->busy_sp = sp;
		ctrace__barrier();
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		if (lib)
			lib_record(t, exit_bit, fn, site, sp, lv);
		else if (x != NULL)
			ctrace__policy_exit_read(t, fn, site, sp, x, r);
		else if (r != NULL)
			ctrace__policy_enter_regs(t, fn, site, sp, r);
		else if (atomic_load_explicit(&ctrace__gate,
					      memory_order_relaxed) !=
			 CTRACE_GATE_LIVE)
			ctrace__event_policy(t, exit_bit, fn, site, sp, fp);
		else
			emit_timed(&t->main, exit_bit, fn, site, sp, fp,
				   ctrace__now(), 1, &t->state);
		ctrace__barrier();
		t->state = CTRACE_T_IDLE;
		break;
	}

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
			if (lib)
				lib_record(t, exit_bit, fn, site, sp, lv);
			else if (x != NULL)
				ctrace__policy_exit_read(t, fn, site, sp, x,
							 r);
			else if (r != NULL)
				ctrace__policy_enter_regs(t, fn, site, sp, r);
			else
				ctrace__event_record(t, exit_bit, fn, site, sp, fp);
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
			emit_timed(s, exit_bit, fn, site, sp, fp, now, 0,
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
	ctrace__barrier();
	if (first)
		ctrace__state_self--;
}

/* Two entries, so that no hook passes an argument on the stack (a
 * seventh would give the hooks' hot path a frame). */
void ctrace__event_slow(struct ctrace__thread *t, uint8_t exit_bit,
			uintptr_t fn, uintptr_t site, uintptr_t sp, uintptr_t fp)
{
	event_slow(t, exit_bit, fn, site, sp, fp, NULL, NULL, 0, NULL);
}

void ctrace__event_slow_regs(struct ctrace__thread *t, uintptr_t fn,
			     uintptr_t site, const struct ctrace__regs *r)
{
	event_slow(t, 0, fn, site, r->sp, CTRACE_REGS_FP(r), r, NULL, 0, NULL);
}

void ctrace__event_slow_exit_regs(struct ctrace__thread *t, uintptr_t fn,
				  uintptr_t site,
				  const struct ctrace__plan_exit *x,
				  const struct ctrace__regs *r)
{
	event_slow(t, CTRACE_TAG_EXIT_BIT, fn, site, r->sp, r->sp, r, x, 0,
		   NULL);
}

/* A library call's slow path, out of line: its frame stays off the
 * library calls' common path. */
static __attribute__((noinline)) void
event_slow_lib(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
	       uintptr_t site, uintptr_t sp, const struct ctrace__libvals *v)
{
	event_slow(t, exit_bit, fn, site, sp, 0, NULL, NULL, 1, v);
}

void ctrace__event_refused(void)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	/* Recording switched off (ctrace_disable, the toggle signal, this
	 * thread's): the call would not have been recorded, nor is it lost. */
	uint8_t gate = atomic_load_explicit(&ctrace__gate, memory_order_relaxed);
	if ((gate & CTRACE_GATE_OFF) || t->thread_off)
		return;
	if (t->state != CTRACE_T_IDLE) {
		struct ctrace_file_header *h = ctrace__file.header;
		if (h != NULL)
			__atomic_fetch_add(&h->lost_events, 1,
					   __ATOMIC_RELAXED);
		return;
	}
	uintptr_t outer = ctrace__event_busy(t, ctrace__sp());
	ctrace__stream_lost(&t->main, ctrace__now(), CTRACE_LOST_RETURNS);
	ctrace__event_idle(t, outer);
}

void ctrace__event_loaded(void)
{
	int saved_errno = errno;
	ctrace__modules_refresh(ctrace__now(), 0);
	errno = saved_errno;
}

void ctrace__event(uint8_t exit_bit, uintptr_t fn, uintptr_t site,
		   uintptr_t sp)
{
	ctrace__event_lib(exit_bit, fn, site, sp, NULL);
}

void ctrace__event_lib(uint8_t exit_bit, uintptr_t fn, uintptr_t site,
		       uintptr_t sp, const struct ctrace__libvals *v)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	/* errno is not saved here: each path that may change it keeps it
	 * (as for the hooks), and reading it calls __errno_location, through
	 * a GOT slot that may be redirected: a trip through a trampoline,
	 * twice a library call. */
	if (likely(t->state == CTRACE_T_IDLE)) {
		uintptr_t outer = ctrace__event_busy(t, sp);
		lib_record(t, exit_bit, fn, site, sp, v);
		ctrace__event_idle(t, outer);
	} else if (t->state != CTRACE_T_OFF) {
		/* A thread's first event (its values too), or one that
		 * found the recorder left by a jump. */
		event_slow_lib(t, exit_bit, fn, site, sp, v);
	}
}
