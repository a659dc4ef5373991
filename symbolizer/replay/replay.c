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
	bool several; /* merge keys on the timeline of several traces */
};

/* A child process's events come in one block where its parent made it:
 * compared by their processes' nest keys, then, where one process is the
 * other's ancestor, the ancestor's event at time t and a block made at
 * time s by t <= s.  0: the same place, ordered by time.  x_ticks and
 * y_ticks: the threads' next events' merge keys (next_ticks). */
static inline int nest_cmp(const struct thread *x, uint64_t x_ticks,
			   const struct thread *y, uint64_t y_ticks)
{
	const struct trace *a = x->trace, *b = y->trace;
	size_t n = a->nest_len < b->nest_len ? a->nest_len : b->nest_len;

	for (size_t i = 0; i < n; i++)
		if (a->nest_key[i] != b->nest_key[i])
			return a->nest_key[i] < b->nest_key[i] ? -1 : 1;
	if (a->nest_len < b->nest_len)
		return x_ticks <= b->nest_key[n] ? -1 : 1;
	if (a->nest_len > b->nest_len)
		return y_ticks <= a->nest_key[n] ? 1 : -1;
	return 0;
}

/* Whether thread x's event with merge keys x_ticks and x_own comes
 * before y's with y_ticks and y_own: placed as their processes nest,
 * then by their own times. */
static inline bool comes_before(const struct thread *x, uint64_t x_ticks,
				uint64_t x_own, const struct thread *y,
				uint64_t y_ticks, uint64_t y_own)
{
	int c = nest_cmp(x, x_ticks, y, y_ticks);

	if (c)
		return c < 0;
	if (x_own != y_own)
		return x_own < y_own;
	if (x->trace != y->trace)
		return x->trace->time_offset < y->trace->time_offset;
	return x->info->serial < y->info->serial;
}

/* Threads in the heap have an event: by its merge keys. */
static inline bool heap_before(const struct thread *x, const struct thread *y)
{
	return comes_before(x, x->next_ticks, x->next_own, y, y->next_ticks,
			    y->next_own);
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

/* The child of a[i] that sifting down compares a[i] with. */
static inline size_t heap_child(const struct heap *h, size_t i)
{
	size_t c = 2 * i + 1;

	if (c + 1 < h->n && heap_before(h->a[c + 1], h->a[c]))
		c++;
	return c;
}

static void heap_sift_down(struct heap *h, size_t i)
{
	struct thread *x = h->a[i];

	while (2 * i + 1 < h->n) {
		size_t c = heap_child(h, i);
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
	struct heap h = {must_calloc(n, sizeof *h.a), 0, several};

	for (size_t i = 0; i < n; i++) {
		const struct event *ev = thread_peek(&threads[i]);
		if (ev) {
			threads[i].merge = &h;
			threads[i].next_ticks =
				merge_key(&threads[i], ev->ticks, several);
			threads[i].next_own = merge_key(
				&threads[i], thread_own_time(&threads[i], ev),
				several);
			h.a[h.n++] = &threads[i];
		} else
			thread_finish(o, &threads[i]);
	}
	for (size_t i = h.n / 2; i-- > 0;)
		heap_sift_down(&h, i);
	if (h.n == 1)
		h.a[0]->merge = NULL;

	while (h.n) {
		struct thread *th = h.a[0];
		const struct event *ev;

		thread_step(o, th);
		if (!--progress_countdown)
			progress_tick();
		ev = thread_peek(th);
		if (ev) {
			th->next_ticks = merge_key(th, ev->ticks, several);
			th->next_own = merge_key(
				th, thread_own_time(th, ev), several);
		} else {
			thread_finish(o, th);
			th->merge = NULL;
			h.a[0] = h.a[--h.n];
			if (!h.n)
				break;
			if (h.n == 1) /* alone from now on */
				h.a[0]->merge = NULL;
		}
		if (h.n > 1)
			heap_sift_down(&h, 0);
	}
	free(h.a);
}

bool replay_takes_next(const struct thread *th, const struct event *ev)
{
	const struct heap *h = th->merge;

	if (!h)
		return true;
	const struct thread *c = h->a[heap_child(h, 0)];
	return !comes_before(c, c->next_ticks, c->next_own, th,
			     merge_key(th, ev->ticks, h->several),
			     merge_key(th, thread_own_time(th, ev),
				       h->several));
}

void replay_run(struct trace **traces, size_t n_traces, struct output *o)
{
	size_t n = 0, k = 0;
	struct thread *threads;
	bool several = n_traces > 1;

	for (size_t i = 0; i < n_traces; i++) {
		n += traces[i]->n_threads;
		traces[i]->skip_payloads = o->no_values;
	}
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

/* A process and where it was made: found from the headers alone, then
 * placed by replaying its spawner's threads (once for all its children). */
struct link {
	struct trace *c;
	size_t spawner; /* index of the spawner's link; SIZE_MAX: none */
	uint64_t s;     /* when, in the spawner's ticks */
	uint32_t serial; /* SPAWN_FORK: the thread that forked */
	bool found;     /* the thread that made it is known */
	uint32_t tid;
	uint64_t last;  /* that thread's last event at or before s */
	size_t shown;   /* the depth its next call would show at then */
	bool ordered;   /* in the order of spawners (place_all) */
};

/* The latest trace of `pid` (see latest_of), as an index. */
static size_t latest_index(struct link *l, size_t n, uint32_t pid,
			   const struct trace *c)
{
	struct trace **all = must_calloc(n, sizeof *all);
	struct trace *best;
	size_t k = SIZE_MAX;

	for (size_t i = 0; i < n; i++)
		all[i] = l[i].c;
	best = latest_of(all, n, pid, c);
	for (size_t i = 0; best && i < n; i++)
		if (all[i] == best)
			k = i;
	free(all);
	return k;
}

/* Which process made trace i, and how: a fork()ed child's parent (the
 * header names it, its thread and the fork's time), else the same
 * process before an exec (the latest trace of the pid), else the parent
 * process (the header's ppid: vfork, posix_spawn, system, popen) or the
 * nearest traced ancestor (a shell between them has no trace). */
static void find_spawner(struct link *l, size_t n, size_t i)
{
	struct trace *c = l[i].c;
	size_t p;

	l[i].spawner = SIZE_MAX;
	if (c->hdr.flags & CTRACE_FLAG_FORKED) {
		c->how = SPAWN_FORK;
		p = latest_index(l, n, c->hdr.parent_pid, c);
		l[i].s = c->hdr.parent_ticks;
		l[i].serial = c->hdr.parent_thread;
	} else if ((p = latest_index(l, n, c->hdr.pid, c)) != SIZE_MAX) {
		c->how = SPAWN_EXEC;
		l[i].s = c->hdr.base_ticks;
	} else {
		c->how = SPAWN_CHILD;
		p = latest_index(l, n, c->hdr.ppid, c);
		for (size_t k = 0; p == SIZE_MAX && k < CTRACE_ANCESTORS &&
				   c->hdr.ancestors[k] > 1;
		     k++)
			p = latest_index(l, n, c->hdr.ancestors[k], c);
		l[i].s = c->hdr.base_ticks;
	}
	l[i].spawner = p;
}

/* Replays each thread of trace l[p] that made one of its children (all
 * of them when a child's thread is not named) once, without output, and
 * notes for each child the depth its thread was at when it made it (a
 * fork()ed child: the calls it inherited open, trace.inherited). */
static void place_children(struct link *l, size_t n, size_t p,
			   size_t *kids, size_t n_kids)
{
	static const struct options no_options;
	struct output quiet = {.ops = &quiet_ops, .stack_only = true,
			       .opts = &no_options};
	struct trace *t = l[p].c;
	bool was_quiet = t->quiet, was_damaged = t->damaged;
	uint64_t lost = t->lost_recorded;
	unsigned reasons = t->lost_reasons;
	bool any_thread = false;

	(void)n;
	for (size_t k = 0; k < n_kids; k++)
		any_thread |= l[kids[k]].c->how != SPAWN_FORK;
	t->quiet = true;
	for (size_t j = 0; j < t->n_threads; j++) {
		const struct thread_info *ti = &t->threads[j];
		struct thread th;
		const struct event *ev;
		uint64_t last = 0;
		bool needed = any_thread;
		for (size_t k = 0; k < n_kids && !needed; k++)
			needed = l[kids[k]].serial == ti->serial;
		if (!needed)
			continue;
		thread_init(&th, t, ti, &no_options, false);
		thread_inherit(&quiet, &th);
		for (size_t k = 0; k < n_kids; k++) {
			struct link *cl = &l[kids[k]];
			struct trace *c = cl->c;
			bool fork = c->how == SPAWN_FORK;
			if (fork && cl->serial != ti->serial)
				continue;
			while ((ev = thread_peek(&th)) && ev->ticks <= cl->s) {
				last = ev->ticks;
				thread_step(&quiet, &th);
			}
			if (!fork && cl->found && last <= cl->last)
				continue;
			cl->found = true;
			cl->tid = ti->tid;
			cl->last = last;
			cl->shown = th.depth + th.shift;
			for (size_t m = 0; fork && th.depth && m < c->n_threads;
			     m++) {
				if (c->threads[m].tid != c->hdr.pid)
					continue;
				c->inherited = must_calloc(th.depth,
							   sizeof *c->inherited);
				c->n_inherited = th.depth;
				c->inherited_tid = c->threads[m].tid;
				/* In the child, an inherited call's time
				 * counts from the fork: the parent's time
				 * before it is the parent's. */
				for (size_t d = 0; d < th.depth; d++) {
					const struct frame *f =
						thread_frame(&th, d);
					c->inherited[d] = (struct frame){
						.pair = f->pair,
						.start = cl->s,
						.sp = f->sp,
						.hook = f->hook,
					};
				}
				break;
			}
		}
		thread_finish(&quiet, &th);
	}
	t->quiet = was_quiet;
	t->damaged = was_damaged;
	t->lost_recorded = lost;
	t->lost_reasons = reasons;
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

/* Trace i's place, its children's now known: where it shows, its key in
 * the replay's order, and its spawner's spawn point. */
static void settle(struct link *l, size_t i)
{
	struct trace *c = l[i].c, *p;

	if (l[i].spawner == SIZE_MAX ||
	    (!l[i].found && c->how != SPAWN_EXEC)) {
		c->how = SPAWN_NONE;
		return;
	}
	p = l[l[i].spawner].c;
	c->spawner = p;
	c->spawner_tid = l[i].found ? l[i].tid : p->hdr.pid;
	c->spawn_ticks = l[i].s;
	/* an image that recorded no thread: the exec comes where it
	 * started */
	c->base_depth = l[i].found ? l[i].shown : p->base_depth;
	/* an exec'd image goes on where the process was; a child comes in
	 * its parent's place, at the time it was made */
	c->nest_len = p->nest_len + (c->how == SPAWN_EXEC ? 0 : 2);
	c->nest_key = must_calloc(c->nest_len + 1, sizeof *c->nest_key);
	if (p->nest_len)
		memcpy(c->nest_key, p->nest_key,
		       p->nest_len * sizeof *c->nest_key);
	if (c->how != SPAWN_EXEC) {
		c->nest_key[p->nest_len] =
			(uint64_t)trace_ns(p, l[i].s) + ((uint64_t)1 << 62);
		c->nest_key[p->nest_len + 1] = 1 + i;
		p->spawn_points = must_realloc(p->spawn_points,
					       p->n_spawn_points + 1,
					       sizeof *p->spawn_points);
		p->spawn_points[p->n_spawn_points++] =
			(struct spawn_point){l[i].s, c->spawner_tid};
	}
}

static const struct link *sort_links;

static int kid_cmp(const void *a, const void *b)
{
	const struct link *x = &sort_links[*(const size_t *)a];
	const struct link *y = &sort_links[*(const size_t *)b];

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return 0;
}

/* Appends i to `order` after its spawner's chain, once. */
static void order_from(struct link *l, size_t i, size_t *order, size_t *n)
{
	if (l[i].ordered)
		return;
	l[i].ordered = true;
	if (l[i].spawner != SIZE_MAX)
		order_from(l, l[i].spawner, order, n);
	order[(*n)++] = i;
}

void replay_inherit(struct trace **traces, size_t n_traces)
{
	struct link *l = must_calloc(n_traces + 1, sizeof *l);
	size_t *order = must_calloc(n_traces + 1, sizeof *order);
	size_t *kids = must_calloc(n_traces + 1, sizeof *kids);
	size_t n_order = 0;

	for (size_t i = 0; i < n_traces; i++)
		l[i].c = traces[i];
	for (size_t i = 0; i < n_traces; i++)
		find_spawner(l, n_traces, i);
	/* a cycle of spawners (damaged headers) is cut where it closes */
	for (size_t i = 0; i < n_traces; i++) {
		size_t up = l[i].spawner, steps = 0;
		while (up != SIZE_MAX && up != i && steps++ < n_traces)
			up = l[up].spawner;
		if (up != SIZE_MAX)
			l[i].spawner = SIZE_MAX;
	}
	/* every spawner before its children: its place first */
	for (size_t i = 0; i < n_traces; i++)
		order_from(l, i, order, &n_order);
	for (size_t k = 0; k < n_order; k++) {
		size_t p = order[k], n_kids = 0;
		settle(l, p);
		for (size_t i = 0; i < n_traces; i++)
			if (l[i].spawner == p)
				kids[n_kids++] = i;
		sort_links = l;
		qsort(kids, n_kids, sizeof *kids, kid_cmp);
		if (n_kids)
			place_children(l, n_traces, p, kids, n_kids);
	}
	for (size_t i = 0; i < n_traces; i++)
		if (traces[i]->n_spawn_points > 1)
			qsort(traces[i]->spawn_points,
			      traces[i]->n_spawn_points,
			      sizeof *traces[i]->spawn_points,
			      spawn_point_cmp);
	free(kids);
	free(order);
	free(l);
}
