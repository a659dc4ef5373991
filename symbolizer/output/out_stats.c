/* out_stats.c -- the report's numbers for programs to read.
 *
 *   # function	calls	total_ns	self_ns
 *   fib	21891	1234567	1234567
 *
 * One line per function, all threads together (with --per-thread, per
 * thread too: the thread's serial, or pid/serial with several traces,
 * comes first on each line and in the header), fields separated by tabs,
 * times in nanoseconds as the report counts them (callstats.c).  Names
 * are escaped as text (escape.c): no tab or newline inside a field.
 * ctrace report --diff reads it.
 */
#include <stdlib.h>

#include "output/output.h"

struct stats_state {
	struct callstats cs;
};

static void stats_entry(struct output *o, struct thread *th,
			const struct pair *p, uint64_t ticks, size_t depth)
{
	struct stats_state *ss = o->state;

	(void)ticks;
	callstats_entry(&ss->cs, th, p, depth);
}

static void stats_leaf(struct output *o, struct thread *th,
		       const struct pair *p, uint64_t start, uint64_t end,
		       size_t depth)
{
	struct stats_state *ss = o->state;

	callstats_leaf(&ss->cs, th, p, start, end, depth);
}

static void stats_close(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, uint64_t end,
			size_t depth, enum close_kind kind)
{
	struct stats_state *ss = o->state;

	callstats_close(&ss->cs, th, p, start, end, depth, kind);
}

static void put_row(struct outbuf *out, const struct stat_row *r)
{
	outbuf_escaped(out, agg_name(r->name), agg_name_len(r->name),
		       ESCAPE_TEXT);
	outbuf_putc(out, '\t');
	outbuf_u64(out, r->calls);
	outbuf_putc(out, '\t');
	outbuf_u64(out, r->total);
	outbuf_putc(out, '\t');
	outbuf_u64(out, r->self);
	outbuf_putc(out, '\n');
}

static void stats_finish(struct output *o)
{
	struct stats_state *ss = o->state;
	struct callstats *cs = &ss->cs;

	if (o->opts->per_thread) {
		outbuf_str(o->out, "# thread\tfunction\tcalls\ttotal_ns\tself_ns\n");
		for (uint32_t t = 0; t < cs->threads.n; t++) {
			const struct agg_thread *at = cs->threads.all[t];
			size_t n;
			uint32_t *rows = callstats_thread_rows(cs, t, &n);
			for (size_t i = 0; i < n; i++) {
				if (o->n_traces > 1) {
					outbuf_u64(o->out, at->pid);
					outbuf_putc(o->out, '/');
				}
				outbuf_u64(o->out, at->id);
				outbuf_putc(o->out, '\t');
				put_row(o->out, &cs->rows[rows[i]]);
			}
			free(rows);
		}
	} else {
		struct stat_row r;
		outbuf_str(o->out, "# function\tcalls\ttotal_ns\tself_ns\n");
		for (uint32_t name = 1; name < agg_names_end(); name++)
			if (callstats_row(cs, name, &r))
				put_row(o->out, &r);
	}
	outbuf_flush(o->out);
	callstats_free(cs);
}

static void stats_park(struct output *o, struct thread *th, size_t depth,
		 size_t n, void **state)
{
	struct stats_state *ss = o->state;

	callstats_park(&ss->cs, th, depth, n, state);
}

static void stats_unpark(struct output *o, struct thread *th, size_t depth,
		 size_t n, void *state)
{
	struct stats_state *ss = o->state;

	callstats_unpark(&ss->cs, th, depth, n, state);
}

static const struct output_ops stats_ops = {
	.entry = stats_entry,
	.leaf = stats_leaf,
	.close = stats_close,
	.park = stats_park,
	.unpark = stats_unpark,
	.drop_parked = agg_drop_parked,
	.finish = stats_finish,
};

void out_stats_init(struct output *o, const struct output_options *oo)
{
	static struct stats_state state;

	(void)oo; /* reads none of them */
	callstats_init(&state.cs, false, o->opts->per_thread);
	o->ops = &stats_ops;
	o->leaves = true;
	o->no_values = true; /* shows no values */
	o->state = &state;
}
