/* thread.c -- from one thread's events to its calls.
 *
 * Each thread keeps a stack of open calls.  An exit closes the innermost
 * open call of the same (function, call site) (or, for gcc's partial
 * inlining, the inlined copy of the function it is in: see split_exit);
 * calls above it never saw their exit (longjmp, exceptions) and are
 * closed as such.  An entry whose frame is above an open call's closes
 * that call the same way, at once rather than at the next exit further
 * out (see abandoned for inlined copies, and libcall_target for the
 * function a library call went to, in the library call's frame).  An
 * exit that matches no open call belongs to a call entered before the
 * trace began (recording switched on inside calls).  So the depth never
 * goes negative and never drifts, whatever the trace holds.  Calls on other stacks (coroutines)
 * are suspended and reopened, see "Stacks" below.
 *
 * A thread's events come from its main stream and, rarely, its signal
 * stream, merged by time.  replay.c runs the threads.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/replay.h"
#include "values/values.h"

/* The values stage knows a call by its addresses, time and name, not by
 * the replay stage's pair. */
/* Filled in place, field by field: a struct built and then copied was
 * read back by wide loads before its narrow stores had landed (a stall
 * of the store buffer, once per value). */
static void call_of(const struct thread *th, const struct pair *p,
		    struct values_call *c)
{
	c->fn = pair_fn(p);
	c->site = p->site;
	c->ticks = symtab_pair_time(th->trace->symtab, p);
	c->name = p->func ? p->func->name : "?";
	c->target = 0;
	c->symbol = NULL;
	c->libcall = symtab_pair_libcall(th->trace->symtab, p, &c->target,
					 &c->symbol);
}

/* The arguments of a call of p; *c: p as the values stage knows it. */
static struct values *call_args(struct thread *th, const struct pair *p,
				const uint8_t *payload, size_t len,
				struct values_call *c)
{
	call_of(th, p, c);
	return values_args(th->trace, c, payload, len);
}

/* The return value of a call of p; same: p as call_args gave it (the
 * pair of a leaf's entry is nearly always its exit's), or NULL. */
static struct values *call_retval(struct thread *th, const struct pair *p,
				  const uint8_t *payload, size_t len,
				  const struct values_call *same)
{
	struct values_call c;
	if (!same)
		call_of(th, p, &c);
	return values_retval(th->trace, same ? same : &c, payload, len);
}

/* The stream's next event, named: from the slot's cached pair when it
 * holds at the event's time (nearly always: two comparisons per event),
 * else by the symbol table.  An empty cache entry holds at no time, and
 * events without a pair have slot 0, whose entry stays empty. */
static inline void advance(struct stream *s)
{
	struct event *ev = &s->head;
	const struct stream_named *n;

	if (!stream_advance(s))
		return;
	n = stream_named_at(s, ev->slot);
	if (ev->ticks >= n->from && ev->ticks < n->until)
		ev->pair = n->pair;
	else
		symtab_name_head(s);
}

static inline void thread_consume(struct thread *th, const struct event *ev)
{
	advance(ev == &th->main.head ? &th->main : &th->sig);
}

void thread_init(struct thread *th, struct trace *t,
		 const struct thread_info *ti, const struct options *opts,
		 bool with_pid)
{
	char digits[48];
	size_t n;

	memset(th, 0, sizeof *th);
	th->trace = t;
	th->info = ti;
	th->id = opts->serial_ids ? ti->serial : ti->tid;
	/* the tree's " [%6s] | " column, formatted once; "PID/TID" when
	 * several processes share the timeline */
	n = 0;
	if (with_pid) {
		n = outbuf_format_u64(digits, t->pid);
		digits[n++] = '/';
	}
	n += outbuf_format_u64(digits + n, th->id);
	th->id_text[0] = ' ';
	th->id_text[1] = '[';
	th->id_len = 2;
	for (size_t i = n; i < 6; i++)
		th->id_text[th->id_len++] = ' ';
	memcpy(th->id_text + th->id_len, digits, n);
	th->id_len += n;
	memcpy(th->id_text + th->id_len, "] | ", 4);
	th->id_len += 4;

	stream_init(&th->main, t, ti->events);
	stream_init(&th->sig, t, ti->signal);
	advance(&th->main);
	advance(&th->sig);

	/* A child's threads show under the call that made it; the thread
	 * that inherited calls open shows them at their own depth. */
	th->shift = t->base_depth;
	if (t->inherited && ti->tid == t->inherited_tid)
		th->shift = t->base_depth > t->n_inherited
				    ? t->base_depth - t->n_inherited : 0;
	th->announce = t->how != SPAWN_NONE && ti->tid == t->pid;
	for (size_t i = 0; i < t->n_spawn_points; i++)
		if (t->spawn_points[i].tid == ti->tid) {
			if (!th->spawns)
				th->spawns = &t->spawn_points[i];
			th->n_spawns++;
		}
}

/* Whether the thread made a child shown in the tree at or after `start`
 * and before `end`: the call open then has callees (the child's). */
static bool spawned_in(const struct thread *th, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = th->n_spawns;

	/* the first at or after start (sorted by time) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (th->spawns[mid].ticks < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < th->n_spawns && th->spawns[lo].ticks < end;
}

/* ---------------------------------------------------------------------------
 * Stacks
 *
 * A thread may run on several stacks: coroutines' (swapcontext), a signal
 * handler's alternate stack.  A call whose stack pointer is far below its
 * caller's, or above it, is on another stack: it starts a *run* (segment)
 * of the open calls, those on one stack, in an array of its own.  An event
 * on the stack of a run below the top means the thread went back there:
 * the calls above
 * are suspended, closed as "no exit recorded" (a siglongjmp out of a
 * handler looks the same, and they may never resume) but kept, one set
 * per stack, to be reopened if the thread comes back to them (an exit of
 * one of them, or an entry on their stack).
 *
 * The outputs are told: such closes come with thread.suspending, the
 * entries that reopen with thread.resumed, and a reopened call's later
 * closes with thread.closing_resumed.  So an output can show a switch in
 * one line and a call once, whatever the depth: the tree and the JSON
 * would otherwise grow as switches times depth.  An output with a
 * switch_stack() callback (replay.h) is told a switch in one call instead
 * of a close or an entry per call it shows once anyway; one with park()
 * and unpark() (the summarizing ones, which keep the open calls) is
 * given each run it left to keep with the run's calls (stack_run's
 * output_state), and back when the run reopens.
 *
 * The replay's own work at a switch does not depend on the depth either:
 * a run moves to the suspended sets and back by pointer (its array kept
 * as it is; a reopened run's calls take their new start and "resumed"
 * from the run's shown and resumed_at, not call by call), and what looks
 * for the run an event belongs to tests a run's bounds (each call's lo
 * and hi, replay.h) before its calls.  So the calls a switch touches are
 * those entered since the run was last left; replay_work counts them.
 * ------------------------------------------------------------------------ */

/* How far below a call its callee's stack pointer may be: farther is
 * another stack.  Coroutine stacks may lie next to each other, so this is
 * small; a frame larger than it starts a segment of its own, which only
 * means it is kept when left by longjmp (and found dead if its stack is
 * entered again). */
#define STACK_GAP ((uint64_t)64 << 10)
/* How far above the outermost call on a stack a call may be and still be
 * on it: a sibling of that call with a smaller frame. */
#define STACK_SLACK ((uint64_t)64 << 10)

/* Stacks with suspended calls kept per thread (coroutines alive at once);
 * more means the oldest set is forgotten (its calls stay closed). */
#define MAX_SUSPENDED 256

/* How far above an open call's stack pointer at its hook its callees'
 * CFAs may lie: i386 code pushes the hook's arguments and pops them
 * before its next call. */
#define FRAME_SLACK 256

/* How far above an open call's stack pointer at its entry hook the CFA of
 * a call it makes may lie, exactly: the hook's return address (a word),
 * and on i386 the hook's two arguments, which gcc pushes in 16 bytes
 * (padding them to the stack's alignment) and pops after the hook, so
 * that a call made then (right after another call, of no stack
 * arguments) has its CFA 20 bytes above.  A call made after the caller
 * was left (longjmp) has its CFA at or above the caller's CFA, which
 * lies higher: above the hook's arguments lie at least the caller's
 * return address.  x86-64 passes the hook's arguments in registers. */
static uint64_t hook_reach(const struct trace *t)
{
	return t->hdr.pointer_size == 4 ? 4 + 16 : 8;
}

uint64_t replay_work;

/* Whether sp can be on the stack of calls from stack pointer `top`
 * (innermost) to `bottom` (outermost). */
static bool on_stack(uint64_t sp, uint64_t top, uint64_t bottom)
{
	return sp + STACK_GAP >= top && sp <= bottom + STACK_SLACK;
}

/* Whether a call at stack pointer `sp` made from one at `caller` runs on
 * another stack. */
static bool new_stack(uint64_t caller, uint64_t sp)
{
	return caller && sp && !on_stack(sp, caller, caller);
}

/* The runs (segments) of the thread's open calls: each its own array,
 * the innermost run the only one that grows or shrinks (a run below
 * changes only once the runs above it are gone), so their bases hold. */
static inline struct stack_run *top_run(const struct thread *th)
{
	return th->n_runs ? &th->runs[th->n_runs - 1] : NULL;
}

static inline struct frame *top_frame(const struct thread *th)
{
	const struct stack_run *r = top_run(th);

	return r ? &r->frames[r->n - 1] : NULL;
}

static inline bool frame_resumed(const struct stack_run *r, size_t i)
{
	return i < r->shown || r->frames[i].resumed;
}

static inline uint64_t frame_start(const struct stack_run *r, size_t i)
{
	return i < r->shown ? r->resumed_at : r->frames[i].start;
}

/* The index of the run that holds the open call at depth d. */
static size_t run_of(const struct thread *th, size_t d)
{
	size_t lo = 0, hi = th->n_runs;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (th->runs[mid].base <= d)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct frame *thread_frame(const struct thread *th, size_t d)
{
	const struct stack_run *r = &th->runs[run_of(th, d)];

	return &r->frames[d - r->base];
}

/* frames[i]'s lo and hi (replay.h) from those of frames[i - 1].  lo is
 * poisoned (0) by a call whose stack pointer or CFA is unknown or wraps,
 * hi (UINT64_MAX) by one whose reach wraps: the bounds only ever skip
 * calls that could not match. */
static void frame_bounds(struct frame *frames, size_t i)
{
	struct frame *f = &frames[i];
	const struct pair *p = f->pair;
	uint64_t lo = f->sp, hi = 0, reach = FRAME_SLACK;

	if (f->sp > UINT64_MAX - p->frame)
		lo = 0;
	if (p->frame && !p->inlined && p->frame - 1 > reach)
		reach = p->frame - 1;
	if (f->sp)
		hi = f->sp > UINT64_MAX - reach ? UINT64_MAX : f->sp + reach;
	if (i) {
		const struct frame *below = &frames[i - 1];
		lo = !lo || !below->lo ? 0 : lo < below->lo ? lo : below->lo;
		hi = hi > below->hi ? hi : below->hi;
	}
	f->lo = lo;
	f->hi = hi;
}

/* A new innermost run, empty. */
static struct stack_run *run_new(struct thread *th)
{
	if (th->n_runs == th->cap_runs) {
		th->cap_runs = th->cap_runs ? 2 * th->cap_runs : 8;
		th->runs = must_realloc(th->runs, th->cap_runs,
					sizeof *th->runs);
	}
	th->runs[th->n_runs] = (struct stack_run){.base = th->depth};
	return &th->runs[th->n_runs++];
}

static struct frame *run_append(struct stack_run *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->frames = must_realloc(r->frames, r->cap, sizeof *r->frames);
	}
	return &r->frames[r->n++];
}

static void push(struct thread *th, const struct pair *p, uint64_t ticks,
		 uint64_t sp, uint64_t hook, struct values *args)
{
	const struct frame *top = top_frame(th);
	struct stack_run *r;
	struct frame *f;

	if (!top || th->new_stack || new_stack(top->sp, sp))
		r = run_new(th);
	else
		r = top_run(th);
	th->new_stack = false;
	f = run_append(r);
	*f = (struct frame){.pair = p,
			    .start = ticks,
			    .sp = sp,
			    .hook = hook,
			    .args = args,
			    .resumed = th->resumed};
	frame_bounds(r->frames, r->n - 1);
	th->depth++;
	replay_work++;
}

/* The pair the outputs show for frame f (see struct frame). */
static inline const struct pair *shown(const struct frame *f)
{
	return f->shown ? f->shown : f->pair;
}

void thread_inherit(struct output *o, struct thread *th)
{
	const struct trace *t = th->trace;

	if (t->inherited == NULL || th->info->tid != t->inherited_tid)
		return;
	for (size_t i = 0; i < t->n_inherited; i++) {
		const struct frame *f = &t->inherited[i];
		push(th, f->pair, f->start, f->sp, f->hook, NULL);
		top_frame(th)->inherited = true;
		top_frame(th)->shown = f->shown;
		output_inherit(o, th, shown(f), f->start, i + th->shift);
	}
}

/* Closes open calls, innermost first, until `keep` are left. */
static void unwind(struct output *o, struct thread *th, size_t keep,
		   uint64_t ticks, enum close_kind kind)
{
	while (th->depth > keep) {
		struct stack_run *r = top_run(th);
		size_t i = r->n - 1;
		struct frame *f = &r->frames[i];

		replay_work++;
		th->depth--;
		/* the parent's call, shown there: the child's calls after it
		 * still show under the call that made the child */
		if (f->inherited) {
			th->shift++;
		} else {
			th->args = f->args;
			th->closing_resumed = frame_resumed(r, i);
			output_close(o, th, shown(f), frame_start(r, i), ticks,
				     th->depth + th->shift, kind);
		}
		th->closing_resumed = false;
		th->args = NULL;
		values_free(f->args);
		f->args = NULL;
		r->n = i;
		if (r->shown > i)
			r->shown = i;
		if (!i)
			free(th->runs[--th->n_runs].frames);
	}
}

/* Whether the output is told a switch in one call (replay.h). */
static bool told_switch(const struct output *o)
{
	return o->ops->switch_stack != NULL || o->ops->park != NULL;
}

/* Forgets suspended set s: its calls and what the output kept of them. */
static void run_drop(struct output *o, struct thread *th, struct stack_run *s)
{
	if (s->output_state && o->ops->drop_parked)
		o->ops->drop_parked(o, th, s->output_state);
	s->output_state = NULL;
	free(s->frames);
	s->frames = NULL;
}

/* Takes the innermost run (its calls closed) off the chain and keeps it,
 * its array as it is, to reopen; a set kept earlier for the same stack is
 * dead now. */
static void keep_suspended(struct output *o, struct thread *th)
{
	struct stack_run r = th->runs[--th->n_runs];
	const struct frame *top = &r.frames[r.n - 1], *bottom = &r.frames[0];
	size_t j = 0;

	if (!bottom->sp || !top->sp) {
		run_drop(o, th, &r);
		return;
	}
	for (size_t i = 0; i < th->n_suspended; i++) {
		struct stack_run *s = &th->suspended[i];
		if (on_stack(s->frames[0].sp, top->sp, bottom->sp) ||
		    on_stack(bottom->sp, s->frames[s->n - 1].sp,
			     s->frames[0].sp))
			run_drop(o, th, s);
		else
			th->suspended[j++] = *s;
	}
	/* Bounded whatever the trace: the oldest set goes. */
	if (j == MAX_SUSPENDED) {
		run_drop(o, th, &th->suspended[0]);
		memmove(th->suspended, th->suspended + 1,
			--j * sizeof *th->suspended);
	}
	th->suspended = must_realloc(th->suspended, j + 1,
				     sizeof *th->suspended);
	th->suspended[j] = r;
	th->n_suspended = j + 1;
}

/* Closes the open calls from `keep` up (where a run starts), each
 * stack's kept to reopen.  An output told the switch in one call is
 * given only the closes of calls it never saw suspended: those above
 * the run's reopened ones, so a switch costs what was entered since. */
static void suspend(struct output *o, struct thread *th, size_t keep,
		    uint64_t ticks)
{
	size_t n = th->depth > keep ? th->depth - keep : 0;
	const struct pair *innermost = n ? top_frame(th)->pair : NULL;
	bool told = told_switch(o);

	th->suspending = true;
	th->switch_told = told;
	while (th->depth > keep) {
		struct stack_run *r = top_run(th);
		if (r->base < keep) { /* not at a run's start: cannot be */
			unwind(o, th, keep, ticks, CLOSE_NO_EXIT);
			break;
		}
		for (size_t i = r->n; i-- > (told ? r->shown : 0);) {
			struct frame *f = &r->frames[i];
			replay_work++;
			/* the parent's call (see unwind): kept as a call of
			 * the child's own, should the thread come back */
			if (f->inherited) {
				f->inherited = false;
				th->shift++;
				continue;
			}
			if (told && f->resumed)
				continue;
			th->args = f->args;
			th->closing_resumed = frame_resumed(r, i);
			output_close(o, th, shown(f), frame_start(r, i), ticks,
				     r->base + i + th->shift, CLOSE_NO_EXIT);
			th->closing_resumed = false;
			th->args = NULL;
			values_free(f->args);
			f->args = NULL;
		}
		th->depth = r->base;
		if (o->ops->park)
			o->ops->park(o, th, r->base + th->shift, r->n,
				     &r->output_state);
		keep_suspended(o, th);
	}
	if (o->ops->switch_stack && n)
		o->ops->switch_stack(o, th, innermost,
				     keep + n - 1 + th->shift, n, false, ticks);
	th->switch_told = false;
	th->suspending = false;
}

/* Puts run s (reopened) on top of the open calls: a run of its own, or
 * when it lies on the innermost calls' stack, one with theirs (copied:
 * not a stack of its own to the replay, which then kept it apart only
 * because a call left it by its frame). */
static void attach(struct thread *th, struct stack_run *s, uint64_t ticks)
{
	const struct frame *top = top_frame(th);

	if (top && !th->new_stack && !new_stack(top->sp, s->frames[0].sp)) {
		struct stack_run *r = top_run(th);
		for (size_t i = 0; i < s->n; i++) {
			struct frame *f = run_append(r);
			*f = s->frames[i];
			f->start = ticks;
			f->args = NULL;
			f->resumed = true;
			frame_bounds(r->frames, r->n - 1);
			replay_work++;
		}
		th->depth += s->n;
		free(s->frames);
	} else {
		struct stack_run *r = run_new(th);
		*r = *s;
		r->base = th->depth;
		r->shown = s->n;
		r->resumed_at = ticks;
		th->depth += s->n;
	}
	th->new_stack = false;
}

/* Reopens the first n calls of a suspended set, and forgets the set. */
static void resume(struct output *o, struct thread *th, size_t which,
		   size_t n, uint64_t ticks)
{
	struct stack_run s = th->suspended[which];
	bool told = told_switch(o);

	if (o->ops->switch_stack && n)
		o->ops->switch_stack(o, th, s.frames[n - 1].pair,
				     th->depth + n - 1 + th->shift, n, true,
				     ticks);
	th->suspended[which] = th->suspended[--th->n_suspended];
	if (n == 0) {
		run_drop(o, th, &s);
		return;
	}
	if (o->ops->unpark)
		o->ops->unpark(o, th, th->depth + th->shift, n,
			       s.output_state);
	s.output_state = NULL;
	s.n = n;
	th->resumed = true;
	for (size_t i = 0; !told && i < n; i++) {
		replay_work++;
		output_entry(o, th, shown(&s.frames[i]), ticks,
			     th->depth + i + th->shift);
	}
	th->resumed = false;
	attach(th, &s, ticks);
}

/* Whether an exit with stack pointer sp (0: unknown, on the stack of the
 * previous entry) can close frame f of a set whose outermost is bottom. */
static bool exits_here(const struct event *ev, const struct frame *f,
		       const struct frame *bottom, bool by_stack)
{
	return pair_same_fn(f->pair, ev->pair) &&
	       f->pair->site == ev->pair->site &&
	       (!by_stack || !ev->sp || !f->sp || !bottom->sp ||
		on_stack(ev->sp, f->sp, bottom->sp));
}

/* Whether exit ev can close none of run r's calls by their stack
 * (exits_here with by_stack): its stack pointer is above the run's
 * outermost call's reach, or farther below all of them than a frame. */
static bool run_out_of_reach(const struct stack_run *r,
			     const struct event *ev)
{
	uint64_t lo = r->frames[r->n - 1].lo;

	return ev->sp && lo &&
	       (ev->sp > r->frames[0].sp + STACK_SLACK ||
		ev->sp + STACK_GAP < lo);
}

/* An exit of a call left on another stack: the thread came back there.
 * Reopens the calls of that stack up to it; false if there is none. */
static bool resume_for_exit(struct output *o, struct thread *th,
			    const struct event *ev)
{
	for (size_t k = th->n_suspended; k-- > 0;) {
		const struct stack_run *s = &th->suspended[k];
		replay_work++;
		if (run_out_of_reach(s, ev))
			continue;
		for (size_t i = s->n; i-- > 0;) {
			replay_work++;
			if (exits_here(ev, &s->frames[i], &s->frames[0], true)) {
				resume(o, th, k, i + 1, ev->ticks);
				return true;
			}
		}
	}
	return false;
}

/* Whether an open call made at the call site of exit p exists. */
static bool site_open(const struct thread *th, const struct pair *p)
{
	for (size_t k = th->n_runs; k-- > 0;) {
		const struct stack_run *r = &th->runs[k];
		for (size_t i = r->n; i-- > 0;) {
			replay_work++;
			if (pair_same_fn(r->frames[i].pair, p) &&
			    r->frames[i].pair->site == p->site)
				return true;
		}
	}
	return false;
}

/* Whether exit ev, which names no open call's call site, is the exit of
 * the innermost open call: an inlined copy of the same function.  That is
 * gcc's partial inlining: f's cheap test is inlined into its callers (the
 * entry hook runs in the caller's frame, with the caller's return address
 * as call site, and the DEFINE's inlined bit set), its body is f.part.N,
 * called from there, whose exit hook passes f.part.N's own return
 * address, a call site in the caller.  Calls nest: an exit of f while an
 * entered f is the innermost open call is that call's, unless its frame
 * was left by longjmp, and then the exit would name an open call's site.
 * Exact for calls whose DEFINE carries a frame; without one (traces
 * before format 1.1) the inlined bit is unknown and nothing matches. */
static bool split_exit(const struct thread *th, const struct event *ev)
{
	const struct pair *top;

	if (th->depth == 0)
		return false;
	top = top_frame(th)->pair;
	return pair_same_fn(top, ev->pair) && top->inlined &&
	       top->site != ev->pair->site && !site_open(th, ev->pair);
}

/* Whether exit ev closes frame j of run r, a function a library call
 * went to whose call site is the recorder's return trampoline (LIB_RETURN:
 * one the library function jumped to, see libcall_target), as an
 * exception unwinds it: the unwinder is given the real return address
 * back first (lib/retval.c), so that the function's exit hook names the
 * library call's own site, that of frame j - 1. */
static bool exits_unwound_target(const struct thread *th,
				 const struct stack_run *r, size_t j,
				 const struct event *ev, bool by_stack)
{
	const struct frame *f = &r->frames[j];
	const struct pair *lib;

	if (j == 0 || th->trace->lib_return == 0 ||
	    f->pair->site != th->trace->lib_return ||
	    !pair_same_fn(f->pair, ev->pair))
		return false;
	lib = r->frames[j - 1].pair;
	return lib->func->libcall && lib->site == ev->pair->site &&
	       (!by_stack || !ev->sp || !f->sp || !r->frames[0].sp ||
		on_stack(ev->sp, f->sp, r->frames[0].sp));
}

/* The depth of the innermost open call exit ev closes, plus one; 0 if
 * none: on its stack, else by function and call site alone (a call that
 * grew its frame beyond a stack's reach, alloca). */
static size_t exit_match(const struct thread *th, const struct event *ev,
			 bool by_stack)
{
	for (size_t k = th->n_runs; k-- > 0;) {
		const struct stack_run *r = &th->runs[k];
		replay_work++;
		if (by_stack && run_out_of_reach(r, ev))
			continue;
		for (size_t j = r->n; j-- > 0;) {
			replay_work++;
			if (exits_here(ev, &r->frames[j],
				       by_stack ? &r->frames[0] : NULL,
				       by_stack) ||
			    exits_unwound_target(th, r, j, ev, by_stack))
				return r->base + j + 1;
		}
	}
	return 0;
}

static void on_exit_event(struct output *o, struct thread *th,
			  const struct event *ev)
{
	size_t i = exit_match(th, ev, true);

	if (i == 0 && resume_for_exit(o, th, ev))
		i = th->depth;
	else if (i == 0)
		i = exit_match(th, ev, false);
	if (i == 0 && split_exit(th, ev))
		i = th->depth;
	if (i > 0) {
		/* the first call above on another stack */
		const struct stack_run *r = &th->runs[run_of(th, i - 1)];
		size_t other = r->base + r->n;
		i--;
		suspend(o, th, other, ev->ticks);
		unwind(o, th, i + 1, ev->ticks, CLOSE_NO_EXIT);
		th->retval = ev->extra && !o->stack_only && !o->no_values
			? call_retval(th, ev->pair, ev->extra,
					ev->extra_len, NULL)
			: NULL;
		unwind(o, th, i, ev->ticks, CLOSE_RETURNED);
		values_free((struct values *)th->retval);
		th->retval = NULL;
		return;
	}
	/* Entered before the trace: recording switched on inside the call,
	 * or a fork()ed child whose parent's trace is not at hand.  The open
	 * calls are left open. */
	output_close(o, th, ev->pair, ev->ticks, ev->ticks,
		      th->depth + th->shift, CLOSE_BEFORE_TRACE);
}

/* The first open call below frames[i] that is not an inlined copy, NULL
 * if none: in frames only (a suspended set, th NULL), or on through the
 * runs below run k of th, whose frames they are. */
static const struct frame *host_below(const struct frame *frames, size_t i,
				      const struct thread *th, size_t k)
{
	for (size_t j = i; j-- > 0;) {
		replay_work++;
		if (!frames[j].pair->inlined)
			return &frames[j];
	}
	for (; th && k-- > 0;) {
		const struct stack_run *r = &th->runs[k];
		for (size_t j = r->n; j-- > 0;) {
			replay_work++;
			if (!r->frames[j].pair->inlined)
				return &r->frames[j];
		}
	}
	return NULL;
}

/* Whether open call frames[i] is gone, now that ev is entered: longjmp
 * or an exception left it without an exit.  The recorded facts: each
 * entry's stack pointer at its hook (exact), and per (function, call
 * site) pair a frame size and an "inlined" bit from a DEFINE.  A real
 * call's frame is its own entry hook's, the same for every call of the
 * pair; an inlined copy runs its hooks in its host's frame, with its
 * host's return address as call site, and a pair shared by copies in
 * several hosts (called from one indirect call site) carries the frame of
 * one host only.  So a copy's frame is never used:
 *  - a copy whose call site is f's runs in the frame that returns where
 *    f's does: f is its host, or a copy in that host; f is live;
 *  - a copy with another call site runs in a host that is a callee of f's
 *    frame if f is live, so below every stack pointer f's frame had at a
 *    hook; at or above f's, f is gone;
 *  - a real call's CFA (stack pointer plus its exact frame) lies below
 *    its caller's return address: gone when not below the CFA of f's
 *    frame, which for a copy is its host's (the open real call of the same
 *    call site below it), or failing that lies above f's stack pointer.
 *  - a real call whose frame is known, of a call f whose frame is not
 *    (its CFI gives its CFA by an expression: i386 gcc's main, which
 *    realigns its stack): gone when its CFA lies above what a call f
 *    makes may have, f's stack pointer plus reach (hook_reach).  A
 *    library call's stack pointer is the callee's, without a hook's
 *    arguments below it: after another call at -O0 it lies above f's
 *    own hook's.
 * Without frame sizes (older traces), stack pointers alone.  frames are
 * run k of th (th NULL: a suspended set), whose host may be below. */
static bool abandoned(const struct frame *frames, size_t i,
		      const struct event *ev, const struct thread *th,
		      size_t k, uint64_t reach)
{
	const struct frame *f = &frames[i];
	const struct pair *p = f->pair, *q = ev->pair;
	uint64_t ev_cfa = ev->sp + q->frame;

	if (!f->sp)
		return false;
	if (q->frame && q->inlined)
		return p->site != q->site && ev->sp >= f->sp;
	if (q->frame && !p->inlined && p->frame)
		return ev_cfa >= f->sp + p->frame;
	if (q->frame && p->inlined) {
		/* Between a copy and its host only copies in the host can be
		 * open: the first real call below is the host, or there is
		 * none (not instrumented). */
		const struct frame *h = host_below(frames, i, th, k);
		if (h && h->pair->site == p->site && h->pair->frame && h->sp)
			return ev_cfa >= h->sp + h->pair->frame;
		return ev_cfa > f->sp;
	}
	if (p->site == q->site && !pair_same_fn(p, q) && f->sp == ev->sp)
		return false;
	if (q->frame && !p->frame)
		return ev_cfa > f->sp + reach;
	return ev->sp >= f->sp;
}

/* Whether open inlined copy f and inlined entry ev, from one call site,
 * ran their hooks in one frame at different stack pointers: gcc may call
 * a copy's entry hook before it pops the stack arguments of the call just
 * made (the stack pointer lower by their size), and its inlined callees'
 * hooks after.  The hooks' CFAs are the same: the frames of the pairs
 * were read at each hook's own stack pointer. */
static bool pending_pop(const struct frame *f, const struct event *ev)
{
	const struct pair *p = f->pair, *q = ev->pair;

	return p->inlined && q->inlined && p->frame && q->frame && f->sp &&
	       p->site == q->site && f->sp + p->frame == ev->sp + q->frame;
}

/* Whether open call f ran its hooks in the frame entry ev runs in: the
 * same call site and stack pointer, and for two real calls whose frames
 * are known the same CFA (calls from one call site in frames of other
 * sizes, one deeper than the other, may meet at one stack pointer). */
static bool in_frame_of(const struct frame *f, const struct event *ev)
{
	const struct pair *p = f->pair, *q = ev->pair;

	if (p->site != q->site)
		return false;
	if (f->sp != ev->sp)
		return pending_pop(f, ev);
	return p->inlined || q->inlined || !p->frame || !q->frame ||
	       p->frame == q->frame;
}

/* Entry ev, an inlined copy with a new hook in the frame of host, whose
 * copies host+1..top-1 are open: which of them hold ev's hook in the
 * DWARF (clang inlines a longjmp's callers into main, and a call after
 * the setjmp returns again runs in main's frame, with its call site and
 * stack pointer, as a callee of the copies would).  The copies that do
 * not are gone, and those above them.  Without DWARF, or with real calls
 * among them (gcc's copies of a function inlined into itself), all stay:
 * ev nests in them. */
static size_t copies_kept(struct thread *th, const struct frame *frames,
			  size_t host, size_t top, const struct event *ev)
{
	uint64_t fns[64];
	size_t n = 0;
	int holding;

	if (!ev->pair->inlined || top - host - 1 > sizeof fns / sizeof *fns)
		return top;
	for (size_t i = host + 1; i < top; i++) {
		if (!frames[i].pair->inlined)
			return top;
		fns[n++] = pair_fn(frames[i].pair);
	}
	if (n == 0)
		return top;
	holding = dw_copies_holding(th->trace, ev->hook - 1, th->wall, fns, n);
	return holding < 0 ? top : host + 1 + (size_t)holding;
}

/* Copies of a function inlined into itself (gcc -O2 and -O3 inline a
 * recursive call into the function's own body, levels deep) run in their
 * host's frame, and their hooks report the host's function, call site and
 * stack pointer, and a frame of the function's own code (not marked
 * inlined): what a new call of the function from the same call site
 * records after the previous one was left by longjmp.  Only the address
 * of the hook call differs (an ENTRY's hook, format 3).  A hook call
 * cannot be nested in itself within one frame, so when an open call of
 * that frame has ev's hook, ev ran it again (after a jump back to or
 * before it): that call and those above are gone; when none has, ev is a
 * copy nested in them.
 *
 * The calls of one frame are those on top of the segment [start, end),
 * but for callees (lower stack pointers, gone now that ev runs above
 * them), that ran in ev's frame (in_frame_of): a real call, the host,
 * then copies inlined into it.  Returns how many open calls to keep when
 * ev runs in the frame of such a host, or SIZE_MAX when it does not, or
 * when a hook is unknown (older traces): abandoned() decides then. */
static size_t frame_calls_kept(struct thread *th, const struct frame *frames,
			       size_t start, size_t end,
			       const struct event *ev)
{
	const struct pair *q = ev->pair;
	size_t top = end, host;

	if (!ev->hook)
		return SIZE_MAX;
	while (top > start && frames[top - 1].sp &&
	       frames[top - 1].sp < ev->sp && !pending_pop(&frames[top - 1], ev))
		top--;
	host = top;
	while (host > start && in_frame_of(&frames[host - 1], ev))
		host--;
	if (host == top || frames[host].pair->inlined)
		return SIZE_MAX;
	/* A real call of another function from the host's call site: the
	 * host is gone (only the host's own code reports it as not
	 * inlined, in its frame).  Without frames (no CFI) which calls
	 * are inlined copies is unknown: a copy, as abandoned() takes it. */
	if (!q->inlined && !pair_same_fn(frames[host].pair, q) && q->frame &&
	    frames[host].pair->frame)
		return host;
	for (size_t i = host; i < top; i++)
		if (!frames[i].hook)
			return SIZE_MAX;
	for (size_t i = host; i < top; i++)
		if (frames[i].hook == ev->hook)
			return i;
	return copies_kept(th, frames, host, top, ev);
}

/* Whether entry ev runs on a stack that lies inside the frame of an open
 * call (a coroutine's stack in a caller's local array): its CFA is above
 * that call's stack pointer and below its CFA.  No call on the open
 * call's own stack can be there: its callees' CFAs lie below its stack
 * pointer, and after a longjmp out of it a new call's CFA is at or above
 * its CFA.  Needs both frames, so real calls only. */
static bool inside_open_frame(const struct thread *th, const struct event *ev)
{
	const struct pair *q = ev->pair;
	uint64_t ev_cfa = ev->sp + q->frame;

	if (!q->frame || q->inlined)
		return false;
	/* Outer calls of a stack lie higher: the search ends at the first
	 * whose stack pointer is not below the CFA, at once for a callee of
	 * the innermost call. */
	for (size_t k = th->n_runs; k-- > 0;) {
		const struct stack_run *r = &th->runs[k];
		replay_work++;
		/* no call of the run holds it or ends the search */
		if (ev_cfa > r->frames[r->n - 1].hi)
			continue;
		for (size_t i = r->n; i-- > 0;) {
			const struct frame *f = &r->frames[i];
			const struct pair *p = f->pair;
			replay_work++;
			if (!f->sp)
				continue;
			if (ev_cfa <= f->sp + FRAME_SLACK)
				return false;
			if (p->frame && !p->inlined &&
			    ev_cfa < f->sp + p->frame)
				return true;
		}
	}
	return false;
}

/* Whether entry ev leaves every call of suspended set s in place (none
 * abandoned()), by the set's bounds alone: its CFA (its stack pointer
 * without a frame) lies at or below the lowest stack pointer of the set,
 * and abandoned() takes a call as gone only when ev's CFA is above a
 * call's stack pointer (or ev's stack pointer at or above it).  The
 * coroutine that goes on with a call on its stack costs no walk of it. */
static bool none_abandoned(const struct stack_run *s, const struct event *ev)
{
	uint64_t lo = s->frames[s->n - 1].lo;
	uint32_t frame = ev->pair->frame;

	if (!lo)
		return false;
	if (frame)
		return ev->sp + frame > ev->sp && ev->sp + frame <= lo;
	return ev->sp < lo;
}

/* Reopens the calls suspended on the stack of entry ev, those its frame
 * shows are still there; false if there are none. */
static bool resume_for_entry(struct output *o, struct thread *th,
			     const struct event *ev)
{
	for (size_t k = th->n_suspended; k-- > 0;) {
		const struct stack_run *s = &th->suspended[k];
		size_t n = 0;
		replay_work++;
		if (!on_stack(ev->sp, s->frames[s->n - 1].sp, s->frames[0].sp))
			continue;
		if (none_abandoned(s, ev))
			n = s->n;
		while (n < s->n && !abandoned(s->frames, n, ev, NULL, 0,
					      hook_reach(th->trace))) {
			replay_work++;
			n++;
		}
		resume(o, th, k, n, ev->ticks);
		return true;
	}
	return false;
}

/* Whether entry ev is the function the innermost open call, a library
 * call, went to (an instrumented library's, or the program's called back
 * through a slot), or one the library function jumped to (a tail call:
 * libstdc++'s basic_string constructor jumping to the program's
 * _M_construct): the trampoline jumps to the first with the call's own
 * stack pointer, and the library function to the second, so that its
 * CFA is the library call's, which abandoned() would take for a call
 * made after a longjmp out of the library call.  The slot's target
 * (PLT_SLOT) tells the first apart, and the recorder's return trampoline
 * as ev's call site (LIB_RETURN) the second: a call made after such a
 * jump is of another function, or goes through the slot again (a
 * library call of its own first), and returns into the program. */
static bool libcall_target(const struct thread *th, const struct event *ev)
{
	const struct frame *f = top_frame(th);
	const struct pair *p, *q = ev->pair;
	uint64_t target = 0;
	const char *symbol;

	if (!f || !f->sp || !q->frame || q->inlined)
		return false;
	p = f->pair;
	if (!p->func->libcall || !p->frame ||
	    ev->sp + q->frame != f->sp + p->frame)
		return false;
	if (th->trace->lib_return != 0 && q->site == th->trace->lib_return)
		return true;
	return symtab_pair_libcall(th->trace->symtab, p, &target, &symbol) &&
	       target == pair_fn(q);
}

/* Whether entry ev is a library call's tail call through a PLT from the
 * open library call on top (libstdc++'s operator delete jumping to free):
 * the recorder names it by that call's site, at that call's stack
 * pointer, with the return trampoline as its hook where a library call's
 * hook is its site (lib/plt.c).  It nests in that call, as it returns
 * through it. */
static bool lib_tail_call(const struct thread *th, const struct event *ev)
{
	const struct stack_run *r;
	const struct frame *f;
	uint64_t target;
	const char *symbol;

	if (th->n_runs == 0 || !ev->sp || !ev->hook ||
	    ev->hook == ev->pair->site)
		return false;
	r = &th->runs[th->n_runs - 1];
	if (r->n == 0)
		return false;
	f = &r->frames[r->n - 1];
	return f->sp == ev->sp && f->pair->site == ev->pair->site &&
	       !f->pair->inlined && !ev->pair->inlined &&
	       symtab_pair_libcall(th->trace->symtab, ev->pair, &target,
				   &symbol) &&
	       symtab_pair_libcall(th->trace->symtab, f->pair, &target,
				   &symbol);
}

/* The pair the outputs show for entry ev, with call sites: ev's, but
 * for the function a library call went to (libcall_target), whose hooks
 * were given the recorder's return trampoline as their call site, the
 * same function at the library call's site, the program's. */
static const struct pair *libcall_site(struct thread *th,
				       const struct event *ev)
{
	if (!libcall_target(th, ev))
		return ev->pair;
	return symtab_pair(th->trace->symtab, pair_fn(ev->pair),
			   top_frame(th)->pair->site, th->wall);
}

/* Before the entry ev: on the stack of the top segment, closes the calls
 * it shows are gone; on the stack of a lower one, suspends the calls above
 * first; on the stack of suspended calls, reopens those still there; on a
 * new stack, leaves everything open (the calls nest where they ran). */
static void before_entry(struct output *o, struct thread *th,
			 const struct event *ev)
{
	size_t k = th->n_runs, keep;
	const struct stack_run *r;

	if (lib_tail_call(th, ev))
		return;
	/* A stack inside a caller's frame: a stack of its own, nested where
	 * it runs, whose suspended calls may come back. */
	if (inside_open_frame(th, ev)) {
		th->new_stack = true;
		resume_for_entry(o, th, ev);
		return;
	}
	for (; k > 0; k--) {
		const struct frame *top, *bottom;
		r = &th->runs[k - 1];
		top = &r->frames[r->n - 1];
		bottom = &r->frames[0];
		replay_work++;
		if (!top->sp || !bottom->sp ||
		    on_stack(ev->sp, top->sp, bottom->sp))
			break;
	}
	if (k == 0) {
		resume_for_entry(o, th, ev);
		return;
	}
	if (k < th->n_runs)
		suspend(o, th, th->runs[k].base, ev->ticks);
	r = &th->runs[k - 1];
	keep = frame_calls_kept(th, r->frames, 0, r->n, ev);
	if (keep == SIZE_MAX) {
		keep = r->n;
		while (keep > 0 && abandoned(r->frames, keep - 1, ev, th, k - 1,
					     hook_reach(th->trace)))
			keep--;
	}
	keep += r->base;
	/* Asked only of an entry that would close calls: the function a
	 * library call went to closes none. */
	if (keep < th->depth && !libcall_target(th, ev))
		unwind(o, th, keep, ev->ticks, CLOSE_NO_EXIT);
}

/* A MARK or CONTROL event, to the output that shows them. */
static void note(struct output *o, struct thread *th, const struct event *ev)
{
	struct note n = {.ticks = ev->ticks};
	char text[64];

	if (o->ops->note == NULL)
		return;
	if (ev->kind == EV_CONTROL) {
		snprintf(text, sizeof text, "recording %s%s",
			 ev->reason == CTRACE_CONTROL_OFF ? "off" : "on",
			 ev->count == CTRACE_CONTROL_THREAD ? " (thread)" : "");
		n.text = text;
		n.text_len = strlen(text);
		n.control = true;
	} else {
		/* u8 kind, [tracepoint name NUL,] message */
		const char *p = (const char *)ev->extra + 1;
		const char *end = (const char *)ev->extra + ev->extra_len;
		if (ev->extra[0] == CTRACE_MARK_TRACEPOINT) {
			const char *nul = memchr(p, '\0', (size_t)(end - p));
			if (nul == NULL)
				return;
			n.tracepoint = p;
			p = nul + 1;
		}
		n.text = p;
		n.text_len = (size_t)(end - p);
	}
	output_note(o, th, &n, th->depth + th->shift);
}

#ifdef NAME_MAX
#define PATH_MAX_NAME NAME_MAX
#else
#define PATH_MAX_NAME 255
#endif

/* The note that starts a child process's part of the tree: its pid,
 * program and how it started. */
static void announce(struct output *o, struct thread *th, uint64_t ticks)
{
	struct trace *t = th->trace;
	const char *exe = t->exe ? t->exe : "?", *slash = strrchr(exe, '/');
	struct note n = {.ticks = ticks, .control = true};
	char text[PATH_MAX_NAME + 96]; /* a file name and the words */

	if (o->ops->note == NULL || o->stack_only)
		return;
	t->announced = true;
	if (slash && slash[1])
		exe = slash + 1;
	if (t->how == SPAWN_FORK)
		snprintf(text, sizeof text, "process %" PRIu32 " (%s), forked "
			 "by process %" PRIu32, t->pid, exe, t->spawner->pid);
	else if (t->how == SPAWN_EXEC && t->spawner->how == SPAWN_FORK &&
		 !t->spawner->announced)
		/* a fork()ed child that made no call before its exec */
		snprintf(text, sizeof text, "process %" PRIu32 " (%s), forked "
			 "by process %" PRIu32 ", after exec", t->pid, exe,
			 t->spawner->spawner->pid);
	else if (t->how == SPAWN_EXEC)
		snprintf(text, sizeof text, "process %" PRIu32 " (%s), after "
			 "exec", t->pid, exe);
	else
		snprintf(text, sizeof text, "process %" PRIu32 " (%s), started "
			 "by process %" PRIu32, t->pid, exe, t->spawner->pid);
	n.text = text;
	n.text_len = strlen(text);
	output_note(o, th, &n, th->depth + th->shift);
}

/* An inlined copy's hooks run in its host's frame and are given the
 * host's call site: its own call site is the inlined call's, in the host,
 * the innermost open call that is not an inlined copy itself. */
static const struct pair *inlined_pair(struct thread *th, const struct pair *p,
				       uint64_t hook)
{
	const struct frame *top = top_frame(th);
	const struct frame *host =
		top && !top->pair->inlined
			? top
			: top ? host_below(top_run(th)->frames,
					   top_run(th)->n - 1, th,
					   th->n_runs - 1)
			      : NULL;

	if (host)
		return symtab_inlined_pair(th->trace->symtab, th->trace, p,
					   pair_fn(host->pair), hook);
	/* the host was entered before the trace: its call site is unknown */
	return symtab_inlined_pair(th->trace->symtab, th->trace, p, 0, hook);
}

/* The time the outputs are given for `ev`, the head of one of the
 * thread's streams (not consumed yet): the thread's own time, its
 * streams' time without the recorder's pauses (PAUSE records, format 5.2)
 * that came before it: those its stream decoded before it, and those the
 * other stream decoded before its own head (the recorder's work after an
 * event of the thread, done before the thread went on: earlier than ev,
 * which the merge by time takes after that event).  So every duration
 * and every time between two calls of a thread (tree, report, JSON,
 * Chrome, flame graphs, filters) is the program's, and the calls of a
 * thread keep their order.  Threads are merged by it too (replay.c), so
 * that calls come in the order of the times shown; a thread's two
 * streams are merged, and modules and child processes placed, by the
 * recorded times (the wall clock): the events' ticks. */
uint64_t thread_own_time(const struct thread *th, const struct event *ev)
{
	uint64_t paused = th->main.paused + th->sig.paused;
	if (paused < th->main.paused) /* a damaged trace's */
		paused = UINT64_MAX;
	uint64_t t = ev->ticks > paused ? ev->ticks - paused : 0;
	/* Never before the thread's previous event (a pause that waited
	 * for room is told one event late; a signal handler's events inside
	 * a pause of the recorder it interrupted). */
	return t < th->own ? th->own : t;
}

static uint64_t own_time(struct thread *th, const struct event *ev)
{
	th->own = thread_own_time(th, ev);
	return th->own;
}

void thread_step(struct output *o, struct thread *th)
{
	struct event *head = thread_peek(th), *next;
	struct event ev;
	struct values *args;
	struct values_call vc; /* ev's pair, when args */
	const struct pair *show; /* what the outputs show of an entry */

	if (th->announce) {
		th->announce = false;
		announce(o, th, head->ticks); /* no pause before it */
		head = thread_peek(th);
	}
	ev = *head;
	th->wall = ev.ticks;
	ev.ticks = own_time(th, head);
	thread_consume(th, head);
	switch (ev.kind) {
	case EV_ENTRY:
		if (ev.sp)
			before_entry(o, th, &ev);
		if (ev.pair->inlined && o->call_sites)
			ev.pair = inlined_pair(th, ev.pair, ev.hook);
		show = ev.sp && o->call_sites ? libcall_site(th, &ev) : ev.pair;
		next = o->leaves || o->leaves_in_order ? thread_peek(th)
							: NULL;
		args = ev.extra && !o->stack_only && !o->no_values
			? call_args(th, ev.pair, ev.extra,
				      ev.extra_len, &vc)
			: NULL;
		payload_free(ev.extra);
		th->args = args;
		if (next && next->kind == EV_EXIT &&
		    pair_same_fn(next->pair, ev.pair) &&
		    (next->pair->site == ev.pair->site ||
		     (ev.pair->inlined && !site_open(th, next->pair))) &&
		    (!next->sp || !ev.sp || on_stack(next->sp, ev.sp, ev.sp)) &&
		    !spawned_in(th, th->wall, next->ticks) &&
		    (o->leaves || !th->merge || replay_takes_next(th, next))) {
			th->retval = next->extra && !o->no_values
				? call_retval(th, next->pair,
						next->extra, next->extra_len,
						args && next->pair == ev.pair
							? &vc : NULL)
				: NULL;
			th->wall = next->ticks;
			output_leaf(o, th, show, ev.ticks,
				    own_time(th, next),
				    th->depth + th->shift);
			values_free((struct values *)th->retval);
			values_free(args);
			th->retval = NULL;
			payload_free(next->extra);
			next->extra = NULL;
			thread_consume(th, next);
		} else {
			output_entry(o, th, show, ev.ticks,
				     th->depth + th->shift);
			push(th, ev.pair, ev.ticks, ev.sp, ev.hook, args);
			if (show != ev.pair)
				top_frame(th)->shown = show;
		}
		th->new_stack = false; /* not taken by a leaf */
		th->args = NULL;
		break;
	case EV_EXIT:
		on_exit_event(o, th, &ev);
		payload_free(ev.extra);
		break;
	case EV_LOST:
		output_lost(o, th, ev.count, ev.reason,
			    th->depth + th->shift);
		break;
	case EV_THREAD_END:
		unwind(o, th, 0, ev.ticks, CLOSE_UNFINISHED);
		break;
	case EV_MARK:
	case EV_CONTROL:
		note(o, th, &ev);
		payload_free(ev.extra);
		break;
	}
}

void thread_finish(struct output *o, struct thread *th)
{
	unwind(o, th, 0, 0, CLOSE_UNFINISHED);
	for (size_t i = 0; i < th->n_suspended; i++)
		run_drop(o, th, &th->suspended[i]);
	free(th->suspended);
	th->suspended = NULL;
	th->n_suspended = 0;
	free(th->runs);
	th->runs = NULL;
	th->n_runs = th->cap_runs = 0;
	stream_fini(&th->main);
	stream_fini(&th->sig);
}
