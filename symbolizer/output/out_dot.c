/* out_dot.c -- the dynamic call graph, for Graphviz.
 *
 *   digraph calls {
 *     n1 [label="main\n1 call\ntotal 1.234 ms\nself 0.012 ms"];
 *     n2 [label="fib\n21891 calls\n..."];
 *     n1 -> n2 [label="1 call\n1.222 ms", penwidth=5.0];
 *     n2 -> n2 [label="21890 calls\n..."];
 *   }
 *
 * One node per function (all threads together) with its calls, total and
 * self time as in the report; one edge per (caller, callee) that occurred,
 * with the number of calls and their time: a call made while a call along
 * the same edge runs in the same thread (fib -> fib inside fib -> fib)
 * adds no time, as in the report's total, so an edge never takes more
 * time than the run.  Edges are drawn
 * thicker and nodes warmer as their time grows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "output/output.h"

struct dot_state {
	struct callstats cs;
};

static void put_duration_trimmed(struct outbuf *out, uint64_t ns)
{
	char buf[32];
	size_t n = outbuf_format_duration(buf, ns), i = 0;

	while (i < n && buf[i] == ' ')
		i++;
	/* "1.500  s" -> "1.500 s" */
	for (; i < n; i++)
		if (!(buf[i] == ' ' && i + 1 < n && buf[i + 1] == ' '))
			outbuf_putc(out, buf[i]);
}

static void put_calls(struct outbuf *out, uint64_t n)
{
	outbuf_u64(out, n);
	outbuf_str(out, n == 1 ? " call" : " calls");
}

/* A colour from pale yellow (cold) to red (hot) for a share in [0, 1]. */
static void put_heat(struct outbuf *out, double share)
{
	char buf[32];
	unsigned g = 235 - (unsigned)(share * 175.0) % 236;
	unsigned b = 200 - (unsigned)(share * 200.0) % 201;

	snprintf(buf, sizeof buf, "#ff%02x%02x", g & 0xff, b & 0xff);
	outbuf_str(out, buf);
}

static void put_number(struct outbuf *out, double v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%.2f", v);
	outbuf_str(out, buf);
}

/* Lost events: a note that says how many (the report's footer, one label
 * line each), a dashed edge to it from each function in which some were
 * lost, with their number. */
static void put_lost(struct outbuf *out, const struct callstats *cs)
{
	struct outbuf label;

	if (!cs->n_lost && !cs->lost_unplaced)
		return;
	outbuf_init_memory(&label);
	callstats_put_lost(&label, cs, "");
	outbuf_flush(&label);
	outbuf_str(out, "  lost [shape=note, style=filled, "
			"fillcolor=\"#dddddd\", label=\"");
	/* its lines, each ended by \l (left-justified) */
	for (size_t i = 0, run = 0; i < label.mem_len; i++) {
		if (label.mem[i] != '\n')
			continue;
		outbuf_escaped(out, label.mem + run, i - run, ESCAPE_DOT);
		outbuf_str(out, "\\l");
		run = i + 1;
	}
	outbuf_str(out, "\"];\n");
	outbuf_free_memory(&label);
	for (size_t i = 0; i < cs->n_lost; i++) {
		if (!cs->lost[i].name)
			continue;
		outbuf_str(out, "  n");
		outbuf_u64(out, cs->lost[i].name);
		outbuf_str(out, " -> lost [style=dashed, label=\"");
		outbuf_u64(out, cs->lost[i].count);
		outbuf_str(out, "\"];\n");
	}
}

static void dot_finish(struct output *o)
{
	struct dot_state *ds = o->state;
	struct callstats *cs = &ds->cs;
	struct outbuf *out = o->out;
	uint32_t end = agg_names_end();
	struct stat_row row;
	const struct stat_row *r = &row;
	uint64_t max_self = 1, max_edge = 1;

	for (uint32_t name = 1; name < end; name++)
		if (callstats_row(cs, name, &row) && row.self > max_self)
			max_self = row.self;
	for (size_t i = 0; i < cs->n_edges; i++)
		if (cs->edges[i].total > max_edge)
			max_edge = cs->edges[i].total;

	outbuf_str(out, "digraph calls {\n"
			"  graph [rankdir=TB, fontname=\"Helvetica\"];\n"
			"  node [shape=box, style=\"rounded,filled\", "
			"fontname=\"Helvetica\", fontsize=10];\n"
			"  edge [fontname=\"Helvetica\", fontsize=9];\n");
	for (uint32_t name = 1; name < end; name++) {
		if (!callstats_row(cs, name, &row))
			continue;
		outbuf_str(out, "  n");
		outbuf_u64(out, r->name);
		outbuf_str(out, " [label=\"");
		outbuf_escaped(out, agg_name(r->name), agg_name_len(r->name),
			       ESCAPE_DOT);
		outbuf_str(out, "\\n");
		put_calls(out, r->calls);
		if (r->returned) {
			outbuf_str(out, "\\ntotal ");
			put_duration_trimmed(out, r->total);
			outbuf_str(out, "\\nself ");
			put_duration_trimmed(out, r->self);
		}
		outbuf_str(out, "\", fillcolor=\"");
		put_heat(out, (double)r->self / (double)max_self);
		outbuf_str(out, "\"];\n");
	}
	for (size_t i = 0; i < cs->n_edges; i++) {
		const struct stat_edge *e = &cs->edges[i];
		outbuf_str(out, "  n");
		outbuf_u64(out, e->caller);
		outbuf_str(out, " -> n");
		outbuf_u64(out, e->callee);
		outbuf_str(out, " [label=\"");
		put_calls(out, e->calls);
		outbuf_str(out, "\\n");
		put_duration_trimmed(out, e->total);
		outbuf_str(out, "\", penwidth=");
		put_number(out, 1.0 + 4.0 * (double)e->total / (double)max_edge);
		outbuf_str(out, "];\n");
	}
	put_lost(out, cs);
	outbuf_str(out, "}\n");
	outbuf_flush(out);
	callstats_free(cs);
}

static void dot_entry(struct output *o, struct thread *th,
		      const struct pair *p, uint64_t ticks, size_t depth)
{
	struct dot_state *ds = o->state;

	(void)ticks;
	callstats_entry(&ds->cs, th, p, depth);
}

static void dot_leaf(struct output *o, struct thread *th, const struct pair *p,
		     uint64_t start, uint64_t end, size_t depth)
{
	struct dot_state *ds = o->state;

	callstats_leaf(&ds->cs, th, p, start, end, depth);
}

static void dot_close(struct output *o, struct thread *th,
		      const struct pair *p, uint64_t start, uint64_t end,
		      size_t depth, enum close_kind kind)
{
	struct dot_state *ds = o->state;

	callstats_close(&ds->cs, th, p, start, end, depth, kind);
}

static void dot_lost(struct output *o, struct thread *th, uint64_t count,
		     unsigned reason, size_t depth)
{
	struct dot_state *ds = o->state;

	callstats_lost(&ds->cs, th, count, reason, depth);
}

static void dot_end_trace(struct output *o, struct trace *t)
{
	struct dot_state *ds = o->state;

	callstats_end_trace(&ds->cs, t);
}

static void dot_park(struct output *o, struct thread *th, size_t depth,
		 size_t n, void **state)
{
	struct dot_state *ds = o->state;

	callstats_park(&ds->cs, th, depth, n, state);
}

static void dot_unpark(struct output *o, struct thread *th, size_t depth,
		 size_t n, void *state)
{
	struct dot_state *ds = o->state;

	callstats_unpark(&ds->cs, th, depth, n, state);
}

static const struct output_ops dot_ops = {
	.entry = dot_entry,
	.leaf = dot_leaf,
	.close = dot_close,
	.park = dot_park,
	.unpark = dot_unpark,
	.drop_parked = agg_drop_parked,
	.lost = dot_lost,
	.end_trace = dot_end_trace,
	.finish = dot_finish,
};

void out_dot_init(struct output *o, const struct output_options *oo)
{
	static struct dot_state state;

	(void)oo; /* reads none of them */
	callstats_init(&state.cs, true, false);
	o->ops = &dot_ops;
	o->leaves = true;
	o->no_values = true; /* shows no values */
	o->state = &state;
}
