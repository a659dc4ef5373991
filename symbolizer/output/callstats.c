/* callstats.c -- time and calls per function (or per thread and
 * function), and per caller and callee: the tables of the report and of
 * the call graph.
 *
 * Each call adds to its row when it returns; self time is its duration
 * minus its callees' (agg_thread keeps the open calls).  Memory: one edge
 * per distinct (caller, callee), one frame per open call, and with
 * --per-thread a 64-byte row and a slot per function and thread.  Without
 * it, the rows of all threads are one, found by the name's id: a function
 * called once, whose call had no time in callees and was not inside a call
 * of itself, takes 9 bytes (a cell holding its duration and a byte of
 * kind); any other takes 9 bytes and a 64-byte row.  What total needs to know
 * per thread, whether a call of the same function is running, comes from
 * a table of the thread's open calls.
 */
#include <stdlib.h>

#include "output/output.h"

/* What a name's cell holds (struct callstats) */
enum {
	ROW_NONE,  /* no call of it */
	ROW_EMPTY, /* no call returned or was closed yet: a fresh row */
	ROW_ONE,   /* one returned call, the cell its duration: calls,
		    * returned 1; total, self, sum, min and max the duration */
	ROW_FULL,  /* the cell is the index of its row in cs->rows */
};

void callstats_init(struct callstats *cs, bool with_edges, bool per_thread)
{
	memset(cs, 0, sizeof *cs);
	cs->with_edges = with_edges;
	cs->per_thread = per_thread;
	if (with_edges) {
		agg_map_init(&cs->edge_index);
	}
	agg_map_init(&cs->lost_index);
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
	free(cs->kinds);
	free(cs->cells);
	if (cs->with_edges) {
		agg_map_free(&cs->edge_index);
	}
	free(cs->edges);
	agg_map_free(&cs->lost_index);
	free(cs->lost);
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

/* A row of no call yet, at the end of cs->rows. */
static struct stat_row *new_row(struct callstats *cs, uint32_t name)
{
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
	return &cs->rows[cs->n_rows - 1];
}

/* --per-thread: the row of name in thread at, made if new. */
static struct stat_row *row_of(struct callstats *cs,
			       const struct agg_thread *at, uint32_t name)
{
	struct row_table *t;
	size_t i;

	if (at->group >= cs->n_row_ids) {
		size_t n = (size_t)at->group + 1;
		cs->row_ids = must_realloc(cs->row_ids, n, sizeof *cs->row_ids);
		memset(cs->row_ids + cs->n_row_ids, 0,
		       (n - cs->n_row_ids) * sizeof *cs->row_ids);
		cs->n_row_ids = n;
	}
	t = &cs->row_ids[at->group];
	row_table_reserve(t, cs->rows);
	for (i = row_hash(name) & t->mask; t->slots[i];
	     i = (i + 1) & t->mask) {
		struct stat_row *r = &cs->rows[t->slots[i] - 1];
		if (r->name == name)
			return r;
	}
	new_row(cs, name);
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

/* A call along caller -> callee that took ns (0: unknown); a call of the
 * same edge still running in the thread already holds this time. */
static void add_edge(struct callstats *cs, const struct agg_thread *at,
		     uint32_t caller, uint32_t callee, uint64_t ns)
{
	uint32_t e = edge_of(cs, caller, callee);

	cs->edges[e].calls++;
	if (!agg_thread_edge_count(at, e + 1))
		cs->edges[e].total += ns;
}

/* ---------------------------------------------------------------------------
 * Rows of all threads (not per_thread)
 * ------------------------------------------------------------------------ */

static void cells_grow(struct callstats *cs, uint32_t name)
{
	size_t cap = cs->cap_names ? 2 * cs->cap_names : 1024;

	while (cap <= name)
		cap *= 2;
	cs->kinds = must_realloc(cs->kinds, cap, sizeof *cs->kinds);
	cs->cells = must_realloc(cs->cells, cap, sizeof *cs->cells);
	memset(cs->kinds + cs->cap_names, ROW_NONE, cap - cs->cap_names);
	cs->cap_names = cap;
}

/* Makes name's cell (a row of no call if it had none). */
static inline void cell_make(struct callstats *cs, uint32_t name)
{
	if (name >= cs->cap_names)
		cells_grow(cs, name);
	if (cs->kinds[name] == ROW_NONE)
		cs->kinds[name] = ROW_EMPTY;
}

bool callstats_row(const struct callstats *cs, uint32_t name,
		   struct stat_row *r)
{
	uint64_t ns;

	switch (name < cs->cap_names ? cs->kinds[name] : ROW_NONE) {
	case ROW_EMPTY:
		*r = (struct stat_row){.name = name, .min = UINT64_MAX};
		return true;
	case ROW_ONE:
		ns = cs->cells[name];
		*r = (struct stat_row){.name = name, .calls = 1, .total = ns,
				       .self = ns, .sum = ns, .min = ns,
				       .max = ns, .returned = 1};
		return true;
	case ROW_FULL:
		*r = cs->rows[cs->cells[name]];
		return true;
	default:
		return false;
	}
}

/* The 64-byte row of name, made from its cell (out of line: once per
 * function). */
static struct stat_row *promote(struct callstats *cs, uint32_t name)
{
	struct stat_row *r = new_row(cs, name);

	callstats_row(cs, name, r);
	cs->kinds[name] = ROW_FULL;
	cs->cells[name] = cs->n_rows - 1;
	return r;
}

/* The 64-byte row of name (which has a cell). */
static inline struct stat_row *full_row(struct callstats *cs, uint32_t name)
{
	if (cs->kinds[name] == ROW_FULL)
		return &cs->rows[cs->cells[name]];
	return promote(cs, name);
}

/* ---------------------------------------------------------------------------
 * Calls
 * ------------------------------------------------------------------------ */

/* A call of name, of duration ns (UINT64_MAX: unknown), whose callees
 * took child_ns; outermost: no other call of it is running in its thread
 * (the calls counted as running already leave this one out). */
static void account(struct callstats *cs, struct agg_thread *at,
		    uint32_t name, struct stat_row *r, uint64_t ns,
		    uint64_t child_ns, bool outermost, size_t depth)
{
	struct agg_frame *parent = agg_parent(at, depth);
	bool known = ns != UINT64_MAX;

	if (!r && cs->kinds[name] == ROW_EMPTY && known && outermost &&
	    (child_ns == 0 || ns == 0)) {
		/* the function's first call, all its own time: the cell */
		cs->kinds[name] = ROW_ONE;
		cs->cells[name] = ns;
	} else {
		if (!r)
			r = full_row(cs, name);
		r->calls++;
		if (known) {
			r->returned++;
			r->sum += ns;
			r->self += ns > child_ns ? ns - child_ns : 0;
			if (outermost)
				r->total += ns;
			if (ns < r->min)
				r->min = ns;
			if (ns > r->max)
				r->max = ns;
		}
	}
	if (known && parent)
		parent->child_ns += ns;
	if (cs->with_edges && parent && parent->name)
		add_edge(cs, at, parent->name, name, known ? ns : 0);
}

void callstats_entry(struct callstats *cs, struct thread *th,
		     const struct pair *p, size_t depth)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	uint32_t name = agg_row_id(th, p);
	struct agg_frame *f, *parent;
	struct agg_seg *s;
	uint32_t ref = 0;

	if (cs->per_thread) {
		/* the row first: making it may move the rows, which the
		 * same expression could read before */
		const struct stat_row *r = row_of(cs, at, name);
		ref = (uint32_t)(r - cs->rows);
	} else {
		cell_make(cs, name);
	}
	f = agg_push(at, depth);
	f->ref = ref;
	f->name = name;
	f->edge_ref = 0;
	f->resumed = th->resumed;
	f->child_ns = 0;
	if (cs->with_edges && (parent = agg_parent(at, depth)) &&
	    parent->name)
		f->edge_ref = edge_of(cs, parent->name, name) + 1;
	/* the frame's segment: the top one, which agg_push filled */
	s = &at->segs[at->n_segs - 1];
	f->counted = false;
	agg_open_add(&s->names, name);
	if (f->edge_ref)
		agg_open_add(&s->edges, f->edge_ref);
	f->counted = true;
}

void callstats_leaf(struct callstats *cs, struct thread *th,
		    const struct pair *p, uint64_t start, uint64_t end,
		    size_t depth)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	uint32_t name = agg_row_id(th, p);
	uint64_t ns = trace_duration(th->trace, start, end);
	struct stat_row *r = NULL;

	if (at->depth > depth) /* only after damage */
		agg_truncate(at, depth);
	if (cs->per_thread)
		r = row_of(cs, at, name);
	else
		cell_make(cs, name);
	account(cs, at, name, r, ns, 0, !agg_thread_count(at, name), depth);
}

void callstats_close(struct callstats *cs, struct thread *th,
		     const struct pair *p, uint64_t start, uint64_t end,
		     size_t depth, enum close_kind kind)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	struct agg_seg *s = kind == CLOSE_BEFORE_TRACE || depth >= at->depth
				    ? NULL : agg_seg_of(at, depth);
	struct agg_frame *f = s ? agg_pop(at, depth) : NULL;
	struct stat_row *r = NULL;
	uint64_t child_ns = 0;
	uint32_t name;
	bool outermost;

	if (f && !f->name && f->resumed) /* counted when first left */
		return;
	if (f && f->name) {
		name = f->name;
		child_ns = f->child_ns;
		if (cs->per_thread)
			r = &cs->rows[f->ref];
		if (f->counted) {
			agg_open_remove(&s->names, name);
			if (f->edge_ref)
				agg_open_remove(&s->edges, f->edge_ref);
			f->counted = false;
		}
		outermost = !agg_thread_count(at, name);
		/* a call is counted once: when the thread first leaves it
		 * for another stack (suspended: its end is unknown), or
		 * when it ends */
		if (f->resumed)
			return;
	} else {
		name = agg_row_id(th, p);
		if (cs->per_thread)
			r = row_of(cs, at, name);
		else
			cell_make(cs, name);
		outermost = !agg_thread_count(at, name);
	}
	account(cs, at, name, r,
		kind == CLOSE_RETURNED ? trace_duration(th->trace, start, end)
				       : UINT64_MAX,
		child_ns, outermost, depth);
}

/* The calls of a stack the thread left, from depth up (n of them: those
 * closed as it left counted again, as open calls of the block), parked
 * by pointer; the replay keeps the block with the stack's calls. */
void callstats_park(struct callstats *cs, struct thread *th, size_t depth,
		    size_t n, void **state)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);

	*state = agg_park(at, depth, n, true);
}

/* Reopens them at depth: the outermost's edge from its new caller. */
void callstats_unpark(struct callstats *cs, struct thread *th, size_t depth,
		      size_t n, void *state)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	struct agg_seg *s;
	struct agg_frame *f, *parent;
	uint32_t edge_ref = 0;

	s = agg_unpark(at, depth, n, state);
	if (!cs->with_edges || !s->n)
		return;
	f = &s->frames[0];
	parent = agg_parent(at, depth);
	if (parent && parent->name && f->name)
		edge_ref = edge_of(cs, parent->name, f->name) + 1;
	if (edge_ref == f->edge_ref)
		return;
	if (f->counted && f->edge_ref)
		agg_open_remove(&s->edges, f->edge_ref);
	f->edge_ref = edge_ref;
	if (f->counted && edge_ref)
		agg_open_add(&s->edges, edge_ref);
}

/* ---------------------------------------------------------------------------
 * Lost events
 * ------------------------------------------------------------------------ */

void callstats_lost(struct callstats *cs, struct thread *th, uint64_t count,
		    unsigned reason, size_t depth)
{
	struct agg_thread *at = agg_thread_get(&cs->threads, th);
	const struct agg_frame *caller = agg_parent(at, depth);
	uint32_t name = caller ? caller->name : 0;
	bool fresh;
	uint32_t *i = agg_map_get(&cs->lost_index, (uint64_t)name + 1,
				  (uint32_t)cs->n_lost, &fresh);

	if (fresh) {
		if (cs->n_lost == cs->cap_lost) {
			cs->cap_lost = cs->cap_lost ? 2 * cs->cap_lost : 8;
			cs->lost = must_realloc(cs->lost, cs->cap_lost,
						sizeof *cs->lost);
		}
		cs->lost[cs->n_lost++] = (struct stat_lost){name, 0};
	}
	struct stat_lost *l = &cs->lost[*i];
	l->count = l->count + count < l->count ? UINT64_MAX : l->count + count;
	if (reason < 32)
		cs->lost_reasons |= 1u << reason;
}

void callstats_end_trace(struct callstats *cs, struct trace *t)
{
	uint64_t n = trace_lost_unplaced(t);

	cs->lost_unplaced = cs->lost_unplaced + n < n ? UINT64_MAX
						      : cs->lost_unplaced + n;
}

static int lost_cmp(const void *a, const void *b)
{
	const struct stat_lost *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (!x->name || !y->name)
		return x->name ? -1 : y->name ? 1 : 0;
	return strcmp(agg_name(x->name), agg_name(y->name));
}

void callstats_put_lost(struct outbuf *out, const struct callstats *cs,
			const char *prefix)
{
	uint64_t total = cs->lost_unplaced;
	struct stat_lost *sorted;
	bool first = true;

	for (size_t i = 0; i < cs->n_lost; i++)
		total = total + cs->lost[i].count < total
				? UINT64_MAX
				: total + cs->lost[i].count;
	if (!total)
		return;
	outbuf_str(out, prefix);
	outbuf_str(out, "ctrace: ");
	outbuf_u64(out, total);
	outbuf_str(out, total == 1 ? " event lost" : " events lost");
	for (unsigned r = 0; r < 32; r++) {
		if (!(cs->lost_reasons & (1u << r)))
			continue;
		outbuf_str(out, first ? " (" : ", ");
		outbuf_str(out, trace_lost_reason_text(r));
		first = false;
	}
	outbuf_str(out, first ? ":\n" : "):\n");
	sorted = must_calloc(cs->n_lost + 1, sizeof *sorted);
	if (cs->n_lost)
		memcpy(sorted, cs->lost, cs->n_lost * sizeof *sorted);
	qsort(sorted, cs->n_lost, sizeof *sorted, lost_cmp);
	/* the number last: a line never ends in a function's name, as the
	 * table's rows do */
	for (size_t i = 0; i < cs->n_lost; i++) {
		outbuf_str(out, prefix);
		if (sorted[i].name) {
			outbuf_str(out, "  in ");
			outbuf_escaped(out, agg_name(sorted[i].name),
				       agg_name_len(sorted[i].name),
				       ESCAPE_TEXT);
			outbuf_str(out, ": ");
		} else {
			outbuf_str(out, "  outside any call: ");
		}
		outbuf_u64(out, sorted[i].count);
		outbuf_putc(out, '\n');
	}
	if (cs->lost_unplaced) {
		outbuf_str(out, prefix);
		outbuf_str(out, "  " TRACE_LOST_UNPLACED_TEXT ": ");
		outbuf_u64(out, cs->lost_unplaced);
		outbuf_putc(out, '\n');
	}
	free(sorted);
}
