/* replay.c -- every thread of every trace through the output, in one
 * tree.
 *
 * All threads are merged by time (ties by thread serial) through a binary
 * heap, unless --per-thread or --per-process asks for one thread, or
 * process, after another.  Several traces (the processes of a run) share
 * the timeline, but a child process's events come in one block where its
 * parent made it: the heap orders first by the processes' nest keys.
 *
 * Where a process was made (replay_inherit): a fork()ed child's thread
 * starts with the calls its parent's thread had open at the fork, found
 * by replaying the parent's thread without output up to that moment; the
 * child's calls show under them, and its returns through them are not
 * shown (thread.c).  A process made otherwise (vfork, posix_spawn, an
 * exec) shows under the calls its parent's thread, or its own previous
 * image, had open when it started.
 */
#include <stdlib.h>

#include "replay/replay.h"

/* ---------------------------------------------------------------------------
 * Merging threads by time
 * ------------------------------------------------------------------------ */

struct heap {
	struct thread **a;
	size_t n;
};

/* A child process's events come in one block where its parent made it:
 * compared by their processes' nest keys, then, where one process is the
 * other's ancestor, the ancestor's event at time t and a block made at
 * time s by t <= s.  0: the same place, ordered by time. */
static inline int nest_cmp(const struct thread *x, const struct thread *y)
{
	const struct trace *a = x->trace, *b = y->trace;
	size_t n = a->nest_len < b->nest_len ? a->nest_len : b->nest_len;

	for (size_t i = 0; i < n; i++)
		if (a->nest_key[i] != b->nest_key[i])
			return a->nest_key[i] < b->nest_key[i] ? -1 : 1;
	if (a->nest_len < b->nest_len)
		return x->next_ticks <= b->nest_key[n] ? -1 : 1;
	if (a->nest_len > b->nest_len)
		return y->next_ticks <= a->nest_key[n] ? 1 : -1;
	return 0;
}

/* Threads in the heap have an event, at next_ticks. */
static inline bool heap_before(const struct thread *x, const struct thread *y)
{
	int c = nest_cmp(x, y);

	if (c)
		return c < 0;
	if (x->next_ticks != y->next_ticks)
		return x->next_ticks < y->next_ticks;
	if (x->trace != y->trace)
		return x->trace->time_offset < y->trace->time_offset;
	return x->info->serial < y->info->serial;
}

/* The merge's clock: a trace's own ticks when it is alone, else ns on the
 * timeline of all traces (offset so that early events stay positive). */
static inline uint64_t merge_key(const struct thread *th, uint64_t ticks,
				 bool several)
{
	if (!several)
		return ticks;
	return (uint64_t)trace_ns(th->trace, ticks) + ((uint64_t)1 << 62);
}

static void heap_sift_down(struct heap *h, size_t i)
{
	struct thread *x = h->a[i];

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && heap_before(h->a[c + 1], h->a[c]))
			c++;
		if (!heap_before(h->a[c], x))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	h->a[i] = x;
}

static void replay_merged(struct output *o, struct thread *threads, size_t n,
			  bool several)
{
	struct heap h = {must_calloc(n, sizeof *h.a), 0};

	for (size_t i = 0; i < n; i++) {
		const struct event *ev = thread_peek(&threads[i]);
		if (ev) {
			threads[i].next_ticks =
				merge_key(&threads[i], ev->ticks, several);
			h.a[h.n++] = &threads[i];
		} else
			thread_finish(o, &threads[i]);
	}
	for (size_t i = h.n / 2; i-- > 0;)
		heap_sift_down(&h, i);

	while (h.n) {
		struct thread *th = h.a[0];
		const struct event *ev;

		thread_step(o, th);
		if (!--progress_countdown)
			progress_tick();
		ev = thread_peek(th);
		if (ev) {
			th->next_ticks = merge_key(th, ev->ticks, several);
		} else {
			thread_finish(o, th);
			h.a[0] = h.a[--h.n];
			if (!h.n)
				break;
		}
		if (h.n > 1)
			heap_sift_down(&h, 0);
	}
	free(h.a);
}

void replay_run(struct trace **traces, size_t n_traces, struct output *o)
{
	size_t n = 0, k = 0;
	struct thread *threads;
	bool several = n_traces > 1;

	for (size_t i = 0; i < n_traces; i++)
		n += traces[i]->n_threads;
	threads = must_calloc(n, sizeof *threads);
	progress_start(o->opts->progress, traces, n_traces, threads, n);
	if (o->opts->per_thread) {
		/* one thread in memory at a time */
		for (size_t i = 0; i < n_traces; i++) {
			struct trace *t = traces[i];
			for (size_t j = 0; j < t->n_threads; j++, k++) {
				struct thread *th = &threads[k];
				thread_init(th, t, &t->threads[j], o->opts,
					    several);
				thread_inherit(o, th);
				while (thread_peek(th)) {
					thread_step(o, th);
					if (!--progress_countdown)
						progress_tick();
				}
				thread_finish(o, th);
			}
		}
	} else {
		for (size_t i = 0; i < n_traces; i++)
			for (size_t j = 0; j < traces[i]->n_threads; j++, k++) {
				thread_init(&threads[k], traces[i],
					    &traces[i]->threads[j], o->opts,
					    several);
				thread_inherit(o, &threads[k]);
			}
		replay_merged(o, threads, n, several);
	}
	progress_end();
	free(threads);
}

/* ---------------------------------------------------------------------------
 * Forked children: the calls they inherit
 * ------------------------------------------------------------------------ */

static void quiet_begin(struct output *o, struct trace *t)
{
	(void)o, (void)t;
}

static void quiet_entry(struct output *o, struct thread *th,
			const struct pair *p, uint64_t ticks, size_t depth)
{
	(void)o, (void)th, (void)p, (void)ticks, (void)depth;
}

static void quiet_leaf(struct output *o, struct thread *th,
		       const struct pair *p, uint64_t start, uint64_t end,
		       size_t depth)
{
	(void)o, (void)th, (void)p, (void)start, (void)end, (void)depth;
}

static void quiet_close(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, uint64_t end,
			size_t depth, enum close_kind kind)
{
	(void)o, (void)th, (void)p, (void)start, (void)end, (void)depth;
	(void)kind;
}

static void quiet_lost(struct output *o, struct thread *th, uint64_t count,
		       unsigned reason, size_t depth)
{
	(void)o, (void)th, (void)count, (void)reason, (void)depth;
}

static void quiet_finish(struct output *o)
{
	(void)o;
}

static const struct output_ops quiet_ops = {
	.begin_trace = quiet_begin,
	.entry = quiet_entry,
	.leaf = quiet_leaf,
	.close = quiet_close,
	.lost = quiet_lost,
	.end_trace = quiet_begin,
	.finish = quiet_finish,
};

/* The latest trace of process `pid`, other than c, started no later than
 * c, with c's clock: a pid may be reused, and an exec keeps it. */
static struct trace *latest_of(struct trace **traces, size_t n, uint32_t pid,
			       const struct trace *c)
{
	struct trace *best = NULL;

	for (size_t i = 0; i < n; i++) {
		struct trace *p = traces[i];
		if (p != c && p->hdr.pid == pid &&
		    p->hdr.clock == c->hdr.clock &&
		    p->hdr.base_ns <= c->hdr.base_ns &&
		    (!best || p->hdr.base_ns > best->hdr.base_ns))
			best = p;
	}
	return best;
}

static const struct thread_info *thread_by_serial(const struct trace *t,
						  uint32_t serial)
{
	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i].serial == serial)
			return &t->threads[i];
	return NULL;
}

/* Replays thread ti of p without output through its events at or before
 * `ticks`: *shown is then the depth its next call would show at, *last
 * the time of its last event (0: none).  With c (a fork()ed child), hands
 * c the calls open then, which its first thread inherits. */
static void probe(struct trace *p, const struct thread_info *ti,
		  uint64_t ticks, struct trace *c, size_t *shown,
		  uint64_t *last)
{
	static const struct options no_options;
	struct output quiet = {.ops = &quiet_ops, .stack_only = true,
			       .opts = &no_options};
	struct thread th;
	const struct event *ev;
	bool was_quiet = p->quiet, was_damaged = p->damaged;
	uint64_t lost = p->lost_recorded;
	unsigned reasons = p->lost_reasons;

	p->quiet = true;
	thread_init(&th, p, ti, &no_options, false);
	thread_inherit(&quiet, &th);
	*last = 0;
	while ((ev = thread_peek(&th)) && ev->ticks <= ticks) {
		*last = ev->ticks;
		thread_step(&quiet, &th);
	}
	*shown = th.depth + th.shift;
	for (size_t j = 0; c && j < c->n_threads; j++) {
		if (c->threads[j].tid != c->hdr.pid || !th.depth)
			continue;
		c->inherited = must_calloc(th.depth, sizeof *c->inherited);
		c->n_inherited = th.depth;
		c->inherited_tid = c->threads[j].tid;
		/* In the child, an inherited call's time counts from the
		 * fork: the parent's time before it is the parent's. */
		for (size_t k = 0; k < th.depth; k++)
			c->inherited[k] = (struct frame){
				.pair = th.stack[k].pair,
				.start = ticks,
				.sp = th.stack[k].sp,
				.hook = th.stack[k].hook,
			};
		break;
	}
	thread_finish(&quiet, &th);
	p->quiet = was_quiet;
	p->damaged = was_damaged;
	p->lost_recorded = lost;
	p->lost_reasons = reasons;
}

enum { TODO, LINKING, LINKED };

struct linking {
	struct trace **traces;
	size_t n;
	unsigned char *state;
};

static void link_trace(struct linking *l, size_t i);

static void link_first(struct linking *l, const struct trace *p)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->traces[i] == p)
			link_trace(l, i);
}

static int spawn_point_cmp(const void *a, const void *b)
{
	const struct spawn_point *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? -1 : 1;
	return 0;
}

/* Finds the process that made trace i and where: a fork()ed child's
 * parent (the header names it, its thread and the fork's time), else the
 * same process before an exec (the latest trace of the pid), else the
 * parent process (the header's ppid: vfork, posix_spawn, system, popen)
 * or the nearest traced ancestor (a shell between them has no trace),
 * the thread of it whose last event before the child started is the
 * latest (the one that made the child, waiting for it or not yet back
 * from vfork).  Its spawner's place first. */
static void link_trace(struct linking *l, size_t i)
{
	struct trace *c = l->traces[i], *p;
	const struct thread_info *ti = NULL;
	size_t shown = 0;
	uint64_t s, last;

	if (l->state[i] != TODO)
		return;
	l->state[i] = LINKING;
	if (c->hdr.flags & CTRACE_FLAG_FORKED) {
		c->how = SPAWN_FORK;
		p = latest_of(l->traces, l->n, c->hdr.parent_pid, c);
		s = c->hdr.parent_ticks;
	} else if ((p = latest_of(l->traces, l->n, c->hdr.pid, c))) {
		c->how = SPAWN_EXEC;
		s = c->hdr.base_ticks;
	} else {
		/* the parent, else the nearest ancestor traced (5.1): a
		 * shell in between has no trace */
		c->how = SPAWN_CHILD;
		p = latest_of(l->traces, l->n, c->hdr.ppid, c);
		for (size_t k = 0; !p && k < CTRACE_ANCESTORS &&
				   c->hdr.ancestors[k] > 1;
		     k++)
			p = latest_of(l->traces, l->n, c->hdr.ancestors[k], c);
		s = c->hdr.base_ticks;
	}
	if (p)
		link_first(l, p);
	if (p && c->how == SPAWN_FORK)
		ti = thread_by_serial(p, c->hdr.parent_thread);
	if (ti) {
		probe(p, ti, s, c, &shown, &last);
	} else if (p && c->how != SPAWN_FORK) {
		uint64_t best = 0;
		for (size_t j = 0; j < p->n_threads; j++) {
			size_t d;
			probe(p, &p->threads[j], s, NULL, &d, &last);
			if (!ti || last > best) {
				ti = &p->threads[j];
				best = last;
				shown = d;
			}
		}
		if (!ti && c->how == SPAWN_EXEC) {
			/* an image that recorded no thread: the exec comes
			 * where it started */
			shown = p->base_depth;
		}
	}
	if (!p || l->state[i] != LINKING || (!ti && c->how != SPAWN_EXEC)) {
		c->how = SPAWN_NONE;
		l->state[i] = LINKED;
		return;
	}
	c->spawner = p;
	c->spawner_tid = ti ? ti->tid : p->hdr.pid;
	c->spawn_ticks = s;
	c->base_depth = shown;
	/* an exec'd image goes on where the process was; a child comes in
	 * its parent's place, at the time it was made */
	c->nest_len = p->nest_len + (c->how == SPAWN_EXEC ? 0 : 2);
	c->nest_key = must_calloc(c->nest_len + 1, sizeof *c->nest_key);
	memcpy(c->nest_key, p->nest_key, p->nest_len * sizeof *c->nest_key);
	if (c->how != SPAWN_EXEC) {
		c->nest_key[p->nest_len] =
			(uint64_t)trace_ns(p, s) + ((uint64_t)1 << 62);
		c->nest_key[p->nest_len + 1] = 1 + i;
		p->spawn_points = must_realloc(p->spawn_points,
					       p->n_spawn_points + 1,
					       sizeof *p->spawn_points);
		p->spawn_points[p->n_spawn_points++] =
			(struct spawn_point){s, c->spawner_tid};
		qsort(p->spawn_points, p->n_spawn_points,
		      sizeof *p->spawn_points, spawn_point_cmp);
	}
	l->state[i] = LINKED;
}

void replay_inherit(struct trace **traces, size_t n_traces)
{
	struct linking l = {traces, n_traces,
			    must_calloc(n_traces + 1, sizeof *l.state)};

	for (size_t i = 0; i < n_traces; i++)
		link_trace(&l, i);
	free(l.state);
}
