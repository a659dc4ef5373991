/* out_report.c -- time per function, in the manner of `uftrace report`.
 *
 *   Total time   Self time       Calls     Average         Min         Max  Function
 *   ==========  ==========  ==========  ==========  ==========  ==========  ========
 *     1.234 ms    1.234 ms       21891    0.056 us    0.010 us    1.234 ms  fib
 *
 * Each call adds to the row of its (thread, function) when it returns;
 * rows are summed over threads at the end unless --per-thread asks for one
 * table per thread.  Memory: one row per function and thread, one frame
 * per open call.
 *
 * total counts the outermost call of a recursion only, so it is the time
 * spent in the function and its callees, once; self is the duration minus
 * the callees' (hidden callees count as self); average, min and max are
 * over every returned call.  A call that never returned (longjmp, still
 * running at the end) counts in calls but in no time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "output.h"

/* ---------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------ */

void callstats_init(struct callstats *cs, bool with_edges)
{
	memset(cs, 0, sizeof *cs);
	cs->with_edges = with_edges;
	if (with_edges) {
		u64map_init(&cs->edge_index);
		u64map_init(&cs->running_index);
	}
}

void callstats_free(struct callstats *cs)
{
	agg_threads_free(&cs->threads);
	id_table_free(&cs->row_ids);
	free(cs->rows);
	if (cs->with_edges) {
		u64map_free(&cs->edge_index);
		u64map_free(&cs->running_index);
	}
	free(cs->edges);
	free(cs->running);
	memset(cs, 0, sizeof *cs);
}

static size_t row_hash(uint32_t thread, uint32_t name)
{
	uint64_t h = ((uint64_t)thread << 32 | name) * 0x9e3779b97f4a7c15u;
	return (size_t)(h >> 29);
}

static size_t row_id_hash(const void *cs, uint32_t id)
{
	const struct stat_row *r = &((const struct callstats *)cs)->rows[id];
	return row_hash(r->thread, r->name);
}

static struct stat_row *row_of(struct callstats *cs,
			       const struct agg_thread *at, uint32_t name)
{
	size_t i;

	must_reserve(&cs->row_ids, cs->n_rows, row_id_hash, cs);
	for (i = row_hash(at->index, name) & cs->row_ids.mask;
	     cs->row_ids.slots[i]; i = (i + 1) & cs->row_ids.mask) {
		struct stat_row *r = &cs->rows[cs->row_ids.slots[i] - 1];
		if (r->thread == at->index && r->name == name)
			return r;
	}
	if (cs->n_rows == cs->cap_rows) {
		cs->cap_rows = cs->cap_rows ? 2 * cs->cap_rows : 256;
		cs->rows = must_realloc(cs->rows, cs->cap_rows,
					sizeof *cs->rows);
	}
	cs->rows[cs->n_rows++] = (struct stat_row){
		.name = name,
		.thread = at->index,
		.min = UINT64_MAX,
	};
	cs->row_ids.slots[i] = (uint32_t)cs->n_rows;
	return &cs->rows[cs->n_rows - 1];
}

static uint32_t edge_of(struct callstats *cs, uint32_t caller, uint32_t callee)
{
	bool fresh;
	uint32_t *v = u64map_get(&cs->edge_index,
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
	uint32_t *v = u64map_get(&cs->running_index,
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
	/* the index is of the rows per thread, gone */
	id_table_free(&cs->row_ids);
	cs->n_rows = k;
	*n = k;
	return cs->rows;
}

/* ---------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------ */

struct report_state {
	struct callstats cs;
};

static enum report_sort sort_key;

static uint64_t avg_of(const struct stat_row *r)
{
	return r->returned ? r->sum / r->returned : 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct stat_row *x = a, *y = b;
	uint64_t kx = 0, ky = 0;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	switch (sort_key) {
	case SORT_TOTAL:
		kx = x->total, ky = y->total;
		break;
	case SORT_CALLS:
		kx = x->calls, ky = y->calls;
		break;
	case SORT_SELF:
		kx = x->self, ky = y->self;
		break;
	case SORT_AVG:
		kx = avg_of(x), ky = avg_of(y);
		break;
	case SORT_MAX:
		kx = x->returned ? x->max : 0, ky = y->returned ? y->max : 0;
		break;
	case SORT_NAME:
		break;
	}
	if (kx != ky)
		return kx > ky ? -1 : 1; /* largest first */
	return strcmp(agg_name(x->name), agg_name(y->name));
}

static void put_time(struct outbuf *out, uint64_t ns, bool known)
{
	char *p = outbuf_reserve(out, 16);

	if (!known) {
		memcpy(p, "         -", 10);
		out->len += 10;
		return;
	}
	out->len += format_duration(p, ns);
}

static void put_count(struct outbuf *out, uint64_t v)
{
	char digits[24];
	size_t n = format_u64(digits, v);

	outbuf_spaces(out, n < 10 ? 10 - n : 0);
	outbuf_write(out, digits, n);
}

static void put_table(struct outbuf *out, const struct stat_row *rows,
		      size_t n)
{
	outbuf_str(out, "  Total time   Self time       Calls     Average"
			"         Min         Max  Function\n"
			"  ==========  ==========  ==========  =========="
			"  ==========  ==========  ========\n");
	for (size_t i = 0; i < n; i++) {
		const struct stat_row *r = &rows[i];
		bool known = r->returned != 0;
		outbuf_spaces(out, 2);
		put_time(out, r->total, known);
		outbuf_spaces(out, 2);
		put_time(out, r->self, known);
		outbuf_spaces(out, 2);
		put_count(out, r->calls);
		outbuf_spaces(out, 2);
		put_time(out, avg_of(r), known);
		outbuf_spaces(out, 2);
		put_time(out, r->min, known);
		outbuf_spaces(out, 2);
		put_time(out, r->max, known);
		outbuf_spaces(out, 2);
		outbuf_escaped(out, agg_name(r->name), agg_name_len(r->name),
			       ESCAPE_TEXT);
		outbuf_putc(out, '\n');
	}
}

static void report_entry(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t ticks, size_t depth)
{
	struct report_state *rs = o->state;

	(void)ticks;
	callstats_entry(&rs->cs, th, p, depth);
}

static void report_leaf(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, uint64_t end,
			size_t depth)
{
	struct report_state *rs = o->state;

	callstats_leaf(&rs->cs, th, p, start, end, depth);
}

static void report_close(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t start, uint64_t end,
			 size_t depth, enum close_kind kind)
{
	struct report_state *rs = o->state;

	callstats_close(&rs->cs, th, p, start, end, depth, kind);
}

static void put_thread_title(struct outbuf *out, const struct agg_thread *at,
			     bool with_pid)
{
	outbuf_str(out, "# thread ");
	if (with_pid) {
		outbuf_u64(out, at->pid);
		outbuf_putc(out, '/');
	}
	outbuf_u64(out, at->id);
	if (at->name) {
		outbuf_str(out, " (");
		outbuf_escaped(out, at->name, strlen(at->name), ESCAPE_TEXT);
		outbuf_putc(out, ')');
	}
	outbuf_putc(out, '\n');
}

static void report_finish(struct output *o)
{
	struct report_state *rs = o->state;
	struct callstats *cs = &rs->cs;

	sort_key = o->opts->sort;
	if (o->opts->per_thread) {
		if (cs->n_rows) /* rows is NULL when nothing was called */
			qsort(cs->rows, cs->n_rows, sizeof *cs->rows, row_cmp);
		for (size_t i = 0, j; i < cs->n_rows; i = j) {
			for (j = i; j < cs->n_rows &&
				    cs->rows[j].thread == cs->rows[i].thread;)
				j++;
			if (i)
				outbuf_putc(o->out, '\n');
			put_thread_title(o->out,
					 cs->threads.all[cs->rows[i].thread],
					 o->n_traces > 1);
			put_table(o->out, cs->rows + i, j - i);
		}
	} else {
		size_t n;
		struct stat_row *rows = callstats_by_name(cs, &n);
		if (n)
			qsort(rows, n, sizeof *rows, row_cmp);
		put_table(o->out, rows, n);
	}
	outbuf_flush(o->out);
	callstats_free(cs);
}

static const struct output_ops report_ops = {
	.entry = report_entry,
	.leaf = report_leaf,
	.close = report_close,
	.finish = report_finish,
};

void output_report_init(struct output *o)
{
	static struct report_state state;

	callstats_init(&state.cs, false);
	o->ops = &report_ops;
	o->leaves = true;
	o->state = &state;
}
