/* replay.c -- every thread of every trace through the output, on one
 * timeline.
 *
 * All threads are merged by time (ties by thread serial) through a binary
 * heap, unless --per-thread asks for one thread after another.  Several
 * traces (the processes of a program that forks) share the timeline.
 *
 * A fork()ed child's thread starts with the calls its parent's thread had
 * open at the fork, found by replaying the parent's thread without output
 * up to that moment: the child's calls nest under them, and its returns
 * through them close them.
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

/* Threads in the heap have an event, at next_ticks. */
static inline bool heap_before(const struct thread *x, const struct thread *y)
{
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

/* The trace of the process that forked `c`: the latest one of its parent's
 * pid (a pid may be reused, an exec keeps it) started before `c`. */
static struct trace *parent_of(struct trace **traces, size_t n,
			       const struct trace *c)
{
	struct trace *best = NULL;

	if (!(c->hdr.flags & CTRACE_FLAG_FORKED))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct trace *p = traces[i];
		if (p != c && p->hdr.pid == c->hdr.parent_pid &&
		    p->hdr.clock == c->hdr.clock &&
		    p->hdr.base_ns <= c->hdr.base_ns &&
		    (!best || p->hdr.base_ns > best->hdr.base_ns))
			best = p;
	}
	return best;
}

struct fork_point {
	struct trace *child, *parent;
	const struct thread_info *thread; /* the parent's, that forked */
	size_t parent_rank;                /* parents before children */
};

static int fork_point_cmp(const void *a, const void *b)
{
	const struct fork_point *x = a, *y = b;

	if (x->parent_rank != y->parent_rank)
		return x->parent_rank < y->parent_rank ? -1 : 1;
	if (x->thread->serial != y->thread->serial)
		return x->thread->serial < y->thread->serial ? -1 : 1;
	if (x->child->hdr.parent_ticks != y->child->hdr.parent_ticks)
		return x->child->hdr.parent_ticks < y->child->hdr.parent_ticks
			       ? -1 : 1;
	return 0;
}

static int trace_start_cmp(const void *a, const void *b)
{
	const struct trace *x = *(struct trace *const *)a;
	const struct trace *y = *(struct trace *const *)b;

	if (x->hdr.base_ns != y->hdr.base_ns)
		return x->hdr.base_ns < y->hdr.base_ns ? -1 : 1;
	return 0;
}

static const struct thread_info *thread_by_serial(const struct trace *t,
						  uint32_t serial)
{
	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i].serial == serial)
			return &t->threads[i];
	return NULL;
}

/* Replays one thread of a parent without output and hands each of its
 * children (sorted by fork time) the calls open when it forked.  The
 * parent's own inherited calls come first: a child of a child nests under
 * both. */
static void inherit_from(const struct fork_point *fp, size_t n)
{
	static const struct options no_options;
	struct output quiet = {.ops = &quiet_ops, .stack_only = true,
			       .opts = &no_options};
	struct trace *p = fp[0].parent;
	struct thread th;
	bool was_quiet = p->quiet, was_damaged = p->damaged;
	uint64_t lost = p->lost_recorded;
	unsigned reasons = p->lost_reasons;

	p->quiet = true;
	thread_init(&th, p, fp[0].thread, &no_options, false);
	thread_inherit(&quiet, &th);
	for (size_t i = 0; i < n; i++) {
		struct trace *c = fp[i].child;
		const struct thread_info *ti;
		const struct event *ev;

		while ((ev = thread_peek(&th)) &&
		       ev->ticks <= c->hdr.parent_ticks)
			thread_step(&quiet, &th);
		ti = NULL;
		for (size_t j = 0; j < c->n_threads && !ti; j++)
			if (c->threads[j].tid == c->hdr.pid)
				ti = &c->threads[j];
		if (!ti || !th.depth)
			continue;
		c->inherited = must_calloc(th.depth, sizeof *c->inherited);
		c->n_inherited = th.depth;
		c->inherited_tid = ti->tid;
		/* In the child, an inherited call's time counts from the
		 * fork: the parent's time before it is the parent's. */
		for (size_t j = 0; j < th.depth; j++) {
			const struct frame *f = thread_frame(&th, j);
			c->inherited[j] = (struct frame){
				.pair = f->pair,
				.start = c->hdr.parent_ticks,
				.sp = f->sp,
				.hook = f->hook,
			};
		}
	}
	thread_finish(&quiet, &th);
	p->quiet = was_quiet;
	p->damaged = was_damaged;
	p->lost_recorded = lost;
	p->lost_reasons = reasons;
}

void replay_inherit(struct trace **traces, size_t n_traces)
{
	struct trace **by_start = must_calloc(n_traces + 1, sizeof *by_start);
	struct fork_point *fp = must_calloc(n_traces + 1, sizeof *fp);
	size_t n = 0;

	memcpy(by_start, traces, n_traces * sizeof *traces);
	qsort(by_start, n_traces, sizeof *by_start, trace_start_cmp);
	for (size_t i = 0; i < n_traces; i++) {
		struct trace *c = by_start[i];
		struct trace *p = parent_of(traces, n_traces, c);
		const struct thread_info *ti =
			p ? thread_by_serial(p, c->hdr.parent_thread) : NULL;
		size_t rank = 0;
		if (!ti)
			continue;
		while (by_start[rank] != p)
			rank++;
		fp[n++] = (struct fork_point){c, p, ti, rank};
	}
	qsort(fp, n, sizeof *fp, fork_point_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && fp[j].parent == fp[i].parent &&
				fp[j].thread == fp[i].thread;
		     j++)
			;
		inherit_from(fp + i, j - i);
	}
	free(fp);
	free(by_start);
}
