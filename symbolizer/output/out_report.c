/* out_report.c -- time per function, in the manner of `uftrace report`.
 *
 *   Total time   Self time       Calls     Average         Min         Max  Function
 *   ==========  ==========  ==========  ==========  ==========  ==========  ========
 *     1.234 ms    1.234 ms       21891    0.056 us    0.010 us    1.234 ms  fib
 *
 * Each call adds to the row of its function when it returns (callstats.c,
 * shared with the call graph), one row for all threads unless
 * --per-thread asks for one table per thread, or --per-process one per
 * process (an exec'd program's trace is a process of its own).  Memory:
 * a row per function (per function and thread, or process), one frame
 * per open call, and 8 bytes per row to sort them.
 *
 * total counts the outermost call of a recursion only, so it is the time
 * spent in the function and its callees, once; self is the duration minus
 * the callees' (hidden callees count as self); average, min and max are
 * over every returned call.  A call that never returned (longjmp, still
 * running at the end) counts in calls but in no time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"

/* ---------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------ */

struct report_state {
	struct callstats cs;
	enum report_sort sort;
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

/* The rows are sorted by index: 4 bytes each and as many for qsort's own
 * buffer, where sorting the 64-byte rows took 16 (glibc sorts large
 * elements through pointers).  An index is of cs->rows with --per-thread,
 * else a name id (callstats_row). */
static const struct callstats *sort_stats;

static const struct stat_row *row_at(const struct callstats *cs, uint32_t i,
				     struct stat_row *buf)
{
	if (cs->per_thread)
		return &cs->rows[i];
	callstats_row(cs, i, buf);
	return buf;
}

static int index_cmp(const void *a, const void *b)
{
	struct stat_row x, y;

	return row_cmp(row_at(sort_stats, *(const uint32_t *)a, &x),
		       row_at(sort_stats, *(const uint32_t *)b, &y));
}

static void sort_by_index(const struct callstats *cs, uint32_t *order,
			  size_t n)
{
	sort_stats = cs;
	if (n)
		qsort(order, n, sizeof *order, index_cmp);
}

static void put_time(struct outbuf *out, uint64_t ns, bool known)
{
	char *p = outbuf_reserve(out, 16);

	if (!known) {
		memcpy(p, "         -", 10);
		out->len += 10;
		return;
	}
	out->len += outbuf_format_duration(p, ns);
}

static void put_count(struct outbuf *out, uint64_t v)
{
	char digits[24];
	size_t n = outbuf_format_u64(digits, v);

	outbuf_spaces(out, n < 10 ? 10 - n : 0);
	outbuf_write(out, digits, n);
}

static void put_table(struct outbuf *out, const struct callstats *cs,
		      const uint32_t *order, size_t n)
{
	struct stat_row buf;

	outbuf_str(out, "  Total time   Self time       Calls     Average"
			"         Min         Max  ");
	outbuf_str(out, agg_by_module ? "Module\n" : "Function\n");
	outbuf_str(out, "  ==========  ==========  ==========  =========="
			"  ==========  ==========  ");
	outbuf_str(out, agg_by_module ? "======\n" : "========\n");
	for (size_t i = 0; i < n; i++) {
		const struct stat_row *r = row_at(cs, order[i], &buf);
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

static void put_process_title(struct outbuf *out, const struct trace *t)
{
	outbuf_str(out, "# process ");
	outbuf_u64(out, t->pid);
	if (t->exe) {
		outbuf_str(out, " (");
		outbuf_escaped(out, t->exe, strlen(t->exe), ESCAPE_TEXT);
		outbuf_putc(out, ')');
	}
	outbuf_putc(out, '\n');
}

static void report_finish(struct output *o)
{
	struct report_state *rs = o->state;
	struct callstats *cs = &rs->cs;

	sort_key = rs->sort;
	if (cs->per_thread) {
		/* a table per thread, or per process (its first thread's
		 * group) */
		bool first = true;
		for (uint32_t t = 0; t < cs->threads.n; t++) {
			const struct agg_thread *at = cs->threads.all[t];
			size_t n;
			uint32_t *order;
			bool seen = false;
			for (uint32_t k = 0; k < t && !seen; k++)
				seen = cs->threads.all[k]->group == at->group;
			if (seen)
				continue;
			order = callstats_thread_rows(cs, at->group, &n);
			if (n) {
				sort_by_index(cs, order, n);
				if (!first)
					outbuf_putc(o->out, '\n');
				first = false;
				if (cs->threads.by_process)
					put_process_title(o->out, at->trace);
				else
					put_thread_title(o->out, at,
							 o->n_traces > 1);
				put_table(o->out, cs, order, n);
			}
			free(order);
		}
	} else {
		uint32_t end = agg_names_end(), *order;
		struct stat_row r;
		size_t n = 0;
		/* no name is looked up from here on: its index makes room */
		agg_names_drop_index();
		order = must_calloc(end, sizeof *order);
		for (uint32_t name = 1; name < end; name++)
			if (callstats_row(cs, name, &r))
				order[n++] = name;
		sort_by_index(cs, order, n);
		put_table(o->out, cs, order, n);
		free(order);
	}
	if (cs->n_lost || cs->lost_unplaced)
		outbuf_putc(o->out, '\n');
	callstats_put_lost(o->out, cs, "# ");
	outbuf_flush(o->out);
	callstats_free(cs);
}

static void report_lost(struct output *o, struct thread *th, uint64_t count,
			unsigned reason, size_t depth)
{
	struct report_state *rs = o->state;

	callstats_lost(&rs->cs, th, count, reason, depth);
}

static void report_end_trace(struct output *o, struct trace *t)
{
	struct report_state *rs = o->state;

	callstats_end_trace(&rs->cs, t);
}

static void report_park(struct output *o, struct thread *th, size_t depth,
		 size_t n, void **state)
{
	struct report_state *rs = o->state;

	callstats_park(&rs->cs, th, depth, n, state);
}

static void report_unpark(struct output *o, struct thread *th, size_t depth,
		 size_t n, void *state)
{
	struct report_state *rs = o->state;

	callstats_unpark(&rs->cs, th, depth, n, state);
}

static const struct output_ops report_ops = {
	.entry = report_entry,
	.leaf = report_leaf,
	.close = report_close,
	.park = report_park,
	.unpark = report_unpark,
	.drop_parked = agg_drop_parked,
	.lost = report_lost,
	.end_trace = report_end_trace,
	.finish = report_finish,
};

void out_report_init(struct output *o, const struct output_options *oo)
{
	static struct report_state state;

	callstats_init(&state.cs, false,
		       o->opts->per_thread || o->opts->per_process);
	/* --per-thread wins: a table per thread */
	state.cs.threads.by_process =
		o->opts->per_process && !o->opts->per_thread;
	state.sort = oo->sort;
	agg_by_module = oo->by_module;
	o->ops = &report_ops;
	o->leaves = true;
	o->no_values = true; /* shows no values */
	o->state = &state;
}
