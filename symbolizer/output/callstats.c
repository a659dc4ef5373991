/* callstats.c -- time and calls per (thread, function), and per caller
 * and callee: the tables of the report and of the call graph.
 *
 * Each call adds to its row when it returns; self time is its duration
 * minus its callees' (agg_thread keeps the open calls).  Memory: one row
 * per function and thread, one edge per distinct (caller, callee), one
 * frame per open call.
 */
#include <stdlib.h>

#include "output.h"

void callstats_init(struct callstats *cs, bool with_edges)
{
	memset(cs, 0, sizeof *cs);
	cs->with_edges = with_edges;
	if (with_edges) {
		agg_map_init(&cs->edge_index);
		agg_map_init(&cs->running_index);
	}
}

static void free_row_tables(struct callstats *cs)
{
	for (size_t i = 0; i < cs->n_row_ids; i++)
		free(cs->row_ids[i].slots);
	free(cs->row_ids);
	cs->row_ids = NULL;
	cs->n_row_ids = 0;
}

void callstats_free(struct callstats *cs)
{
	agg_threads_free(&cs->threads);
	free_row_tables(cs);
	free(cs->rows);
	if (cs->with_edges) {
		agg_map_free(&cs->edge_index);
		agg_map_free(&cs->running_index);
	}
	free(cs->edges);
	free(cs->running);
	memset(cs, 0, sizeof *cs);
	agg_names_free();
}

static size_t row_hash(uint32_t name)
{
	uint64_t h = name * 0x9e3779b97f4a7c15u;
	return (size_t)(h >> 29);
}

/* Makes room for one more row in t, at most five eighths full (as the
 * id tables, pool.h). */
static void row_table_reserve(struct row_table *t, const struct stat_row *rows)
{
	struct row_table big;

	if (t->slots && 8 * (t->n + 1) <= 5 * (t->mask + 1))
		return;
	big.mask = t->slots ? 2 * t->mask + 1 : 63;
	big.n = t->n;
	big.slots = must_calloc(big.mask + 1, sizeof *big.slots);
	for (size_t i = 0; t->slots && i <= t->mask; i++) {
		size_t j;
		if (!t->slots[i])
			continue;
		for (j = row_hash(rows[t->slots[i] - 1].name) & big.mask;
		     big.slots[j]; j = (j + 1) & big.mask)
			;
		big.slots[j] = t->slots[i];
	}
	free(t->slots);
	*t = big;
}

static struct stat_row *row_of(struct callstats *cs,
			       const struct agg_thread *at, uint32_t name)
{
	struct row_table *t;
	size_t i;

	if (at->index >= cs->n_row_ids) {
		size_t n = (size_t)at->index + 1;
		cs->row_ids = must_realloc(cs->row_ids, n, sizeof *cs->row_ids);
		memset(cs->row_ids + cs->n_row_ids, 0,
		       (n - cs->n_row_ids) * sizeof *cs->row_ids);
		cs->n_row_ids = n;
	}
	t = &cs->row_ids[at->index];
	row_table_reserve(t, cs->rows);
	for (i = row_hash(name) & t->mask; t->slots[i];
	     i = (i + 1) & t->mask) {
		struct stat_row *r = &cs->rows[t->slots[i] - 1];
		if (r->name == name)
			return r;
	}
	if (cs->n_rows >= UINT32_MAX - 1) {
		warn_msg(0, "out of memory (2^32 report rows)");
		exit(1);
	}
	if (cs->n_rows == cs->cap_rows) {
		cs->cap_rows = cs->cap_rows ? 2 * cs->cap_rows : 256;
		cs->rows = must_realloc(cs->rows, cs->cap_rows,
					sizeof *cs->rows);
	}
	cs->rows[cs->n_rows++] = (struct stat_row){
		.name = name,
		.min = UINT64_MAX,
	};
	t->slots[i] = (uint32_t)cs->n_rows;
	t->n++;
	return &cs->rows[cs->n_rows - 1];
}

uint32_t *callstats_thread_rows(const struct callstats *cs, uint32_t thread,
				size_t *n)
{
	const struct row_table *t =
		thread < cs->n_row_ids ? &cs->row_ids[thread] : NULL;
	uint32_t *ids = must_calloc(t && t->n ? t->n : 1, sizeof *ids);
	size_t k = 0;

	for (size_t i = 0; t && t->slots && i <= t->mask; i++)
		if (t->slots[i])
			ids[k++] = t->slots[i] - 1;
	*n = k;
	return ids;
}

static uint32_t edge_of(struct callstats *cs, uint32_t caller, uint32_t callee)
{
	bool fresh;
	uint32_t *v = agg_map_get(&cs->edge_index,
				  (uint64_t)caller << 32 | callee,
				  (uint32_t)cs->n_edges, &fresh);

	if (fresh) {
		if (cs->n_edges == cs->cap_edges) {
			cs->cap_edges = cs->cap_edges ? 2 * cs->cap_edges : 256;
			cs->edges = must_realloc(cs->edges, cs->cap_edges,
						 sizeof *cs->edges);
		}
		cs->edges[cs->n_edges++] =
			(struct stat_edge){caller, callee, 0, 0};
	}
	return *v;
}

/* The count of calls running along `edge` in thread `at`. */
static uint32_t *running_of(struct callstats *cs, const struct agg_thread *at,
			    uint32_t edge)
{
	bool fresh;
	uint32_t *v = agg_map_get(&cs->running_index,
				  (uint64_t)(at->index + 1) << 32 | edge,
				  (uint32_t)cs->n_running, &fresh);

	if (fresh) {
		if (cs->n_running == cs->cap_running) {
			cs->cap_running =
				cs->cap_running ? 2 * cs->cap_running : 256;
			cs->running = must_realloc(cs->running, cs->cap_running,
						   sizeof *cs->running);
		}
		cs->running[cs->n_running++] = 0;
	}
	return &cs->running[*v];
}

/* A call along caller -> callee that took ns (0: unknown); a call of the
 * same edge still running in the thread already holds this time. */
static void add_edge(struct callstats *cs, const struct agg_thread *at,
		     uint32_t caller, uint32_t callee, uint64_t ns)
{
	uint32_t e = edge_of(cs, caller, callee);

	cs->edges[e].calls++;
	if (!*running_of(cs, at, e))
		cs->edges[e].total += ns;
}

/* A call of duration ns (UINT64_MAX: unknown) whose callees took
 * child_ns; the row's `active` already left out this call. */
static void account(struct callstats *cs, struct agg_thread *at,
		    struct stat_row *r, uint64_t ns, uint64_t child_ns,
		    size_t depth)
{
	struct agg_frame *parent = agg_parent(at, depth);
	bool known = ns != UINT64_MAX;

	r->calls++;
	if (known) {
		r->returned++;
		r->sum += ns;
		r->self += ns > child_ns ? ns - child_ns : 0;
		if (!r->active)
			r->total += ns;
		if (ns < r->min)
			r->min = ns;
		if (ns > r->max)
			r->max = ns;
		if (parent)
			parent->child_ns += ns;
	}
	if (cs->with_edges && parent && parent->name)
		add_edge(cs, at, parent->name, r->name, known ? ns : 0);
}

void callstats_entry(struct callstats *cs, struct thread *th,
		     const struct pair *p, size_t depth)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	uint32_t name = agg_name_id(p);
	struct stat_row *r = row_of(cs, at, name);
	struct agg_frame *f = agg_push(at, depth), *parent;

	r->active++;
	f->ref = (uint32_t)(r - cs->rows);
	f->name = name;
	f->edge_ref = 0;
	f->child_ns = 0;
	if (cs->with_edges && (parent = agg_parent(at, depth)) &&
	    parent->name) {
		uint32_t *running = running_of(
			cs, at, edge_of(cs, parent->name, name));
		++*running;
		f->edge_ref = (uint32_t)(running - cs->running) + 1;
	}
}

void callstats_leaf(struct callstats *cs, struct thread *th,
		    const struct pair *p, uint64_t start, uint64_t end,
		    size_t depth)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	struct stat_row *r = row_of(cs, at, agg_name_id(p));

	if (at->depth > depth) /* only after damage */
		at->depth = depth;
	account(cs, at, r, trace_duration(th->trace, start, end), 0, depth);
}

void callstats_close(struct callstats *cs, struct thread *th,
		     const struct pair *p, uint64_t start, uint64_t end,
		     size_t depth, enum close_kind kind)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	struct agg_frame *f = kind == CLOSE_BEFORE_TRACE ? NULL
							 : agg_pop(at, depth);
	struct stat_row *r;
	uint64_t child_ns = 0;

	if (f && f->name) {
		r = &cs->rows[f->ref];
		child_ns = f->child_ns;
		if (r->active)
			r->active--;
		if (f->edge_ref && cs->running[f->edge_ref - 1])
			cs->running[f->edge_ref - 1]--;
	} else {
		r = row_of(cs, at, agg_name_id(p));
	}
	account(cs, at, r,
		kind == CLOSE_RETURNED ? trace_duration(th->trace, start, end)
				       : UINT64_MAX,
		child_ns, depth);
}

struct stat_row *callstats_by_name(struct callstats *cs, size_t *n)
{
	uint32_t *slot = must_calloc(agg_names_end(), sizeof *slot); /* +1 */
	size_t k = 0;

	/* rows[k] is written after rows[k..i] were read: in place */
	for (size_t i = 0; i < cs->n_rows; i++) {
		const struct stat_row r = cs->rows[i];
		struct stat_row *o;
		if (!slot[r.name]) {
			cs->rows[k] = (struct stat_row){.name = r.name,
							.min = UINT64_MAX};
			slot[r.name] = (uint32_t)++k;
		}
		o = &cs->rows[slot[r.name] - 1];
		o->calls += r.calls;
		o->returned += r.returned;
		o->total += r.total;
		o->self += r.self;
		o->sum += r.sum;
		if (r.min < o->min)
			o->min = r.min;
		if (r.max > o->max)
			o->max = r.max;
	}
	free(slot);
	/* the tables are of the rows per thread, gone */
	free_row_tables(cs);
	cs->n_rows = k;
	*n = k;
	return cs->rows;
}
