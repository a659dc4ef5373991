/* out_graph.c -- one function's callers and callees, in the manner of
 * `uftrace graph FUNC` (--format=graph --function=FUNC,
 * main by default).
 *
 *   # Function Call Graph for 'inner'
 *   =============== BACKTRACE ===============
 *    backtrace #0: hit 2, time   3.104 us
 *      [0] main
 *      [1] middle
 *      [2] inner
 *
 *   ========== FUNCTION CALL GRAPH ==========
 *   # TOTAL TIME   FUNCTION
 *     3.104 us : (2) inner
 *     0.712 us : (4) leaf
 *
 * The backtraces are the distinct call paths from a thread's outermost
 * call down to a call of FUNC, each with its number of calls and their
 * total time.  The call graph is FUNC's callees, theirs and so on, every
 * call path below FUNC with its calls and total time, the paths below
 * each backtrace added together.  A call of FUNC inside another (a
 * recursion) is part of the outer one's graph, not a backtrace of its
 * own.  A callee that has siblings is drawn "+-(N) name", and the lines
 * below it start with "|" while siblings follow; an only callee is drawn
 * under its caller without a branch.  Callees come in the order of their
 * first call; backtraces too.
 *
 * --format=graph-stats gives the same numbers for programs (ctrace graph
 * --diff reads it), fields separated by tabs, names escaped as text (no
 * tab or newline inside one), times in nanoseconds:
 *
 *   # graph-stats	inner
 *   B	2	3104	main	middle	inner       a backtrace: calls, total, path
 *   C	0	2	3104	inner                the callee tree in preorder:
 *   C	1	4	712	leaf                 depth below FUNC, calls, total
 *
 * The call paths are paths.c's, as for the folded stacks: memory grows
 * with the number of distinct call paths, never with the number of
 * events.  A total counts the calls whose return was recorded.
 */
#include <stdlib.h>

#include "output/output.h"

struct graph_state {
	struct paths paths;
	const char *function;
	bool stats; /* graph-stats: the same numbers, tab-separated */
};

/* The callee tree: the call paths below FUNC, merged across backtraces. */
struct gnode {
	uint32_t name;
	uint32_t first_child, last_child, next; /* 0: none (0 is the root) */
	uint64_t calls, total;
};

struct gtree {
	struct gnode *nodes;
	size_t n, cap;
	struct u64map index; /* parent << 32 | name -> node */
};

static uint32_t gtree_child(struct gtree *g, uint32_t parent, uint32_t name)
{
	bool fresh;
	uint32_t *v = agg_map_get(&g->index, (uint64_t)parent << 32 | name,
				  (uint32_t)g->n, &fresh);
	uint32_t id = *v;

	if (!fresh)
		return id;
	if (g->n == g->cap) {
		g->cap *= 2;
		g->nodes = must_realloc(g->nodes, g->cap, sizeof *g->nodes);
	}
	g->nodes[id] = (struct gnode){name, 0, 0, 0, 0, 0};
	g->n++;
	if (g->nodes[parent].last_child)
		g->nodes[g->nodes[parent].last_child].next = id;
	else
		g->nodes[parent].first_child = id;
	g->nodes[parent].last_child = id;
	return id;
}

static void put_name(struct outbuf *out, uint32_t name)
{
	outbuf_escaped(out, agg_name(name), agg_name_len(name), ESCAPE_TEXT);
}

/* The total time column, or blanks with --no-duration. */
static void put_time(struct output *o, uint64_t ns)
{
	char *p = outbuf_reserve(o->out, 48);

	if (o->opts->no_duration) {
		memset(p, ' ', 10);
		o->out->len += 10;
	} else if (o->opts->color) {
		o->out->len += outbuf_format_duration_color(p, ns);
	} else {
		o->out->len += outbuf_format_duration(p, ns);
	}
}

/* Backtrace lines for `node` and its callers, outermost first. */
static void put_backtrace(struct output *o, const struct paths *ps,
			  uint32_t node, uint32_t *chain)
{
	size_t n = 0;

	for (uint32_t v = node; v; v = ps->nodes[v].parent)
		chain[n++] = v;
	for (size_t i = n; i-- > 0;) {
		outbuf_str(o->out, "   [");
		outbuf_u64(o->out, n - 1 - i);
		outbuf_str(o->out, "] ");
		put_name(o->out, ps->nodes[chain[i]].name);
		outbuf_putc(o->out, '\n');
	}
}

/* The callee tree from its root, depth first, without recursion (a call
 * path can be as deep as the program's stack). */
static void put_tree(struct output *o, const struct gtree *g)
{
	struct outbuf *out = o->out;
	/* what is left to print: a node, its prefix's length, its branch */
	struct todo {
		uint32_t id;
		bool branch;
		size_t len;
	} *todo = must_calloc(g->n, sizeof *todo);
	char *prefix = NULL;
	size_t sp = 0, cap = 0;

	todo[sp++] = (struct todo){0, false, 0};
	while (sp) {
		struct todo t = todo[--sp];
		const struct gnode *v = &g->nodes[t.id];
		size_t n_children = 0, len = t.len, k;

		put_time(o, v->total);
		outbuf_str(out, " : ");
		if (t.len) /* the root's prefix is no buffer at all */
			outbuf_write(out, prefix, t.len);
		if (t.branch)
			outbuf_str(out, " +-");
		outbuf_putc(out, '(');
		outbuf_u64(out, v->calls);
		outbuf_str(out, ") ");
		put_name(out, v->name);
		outbuf_putc(out, '\n');
		if (t.branch) {
			/* what is below it: under a "|" while siblings follow */
			if (len + 3 > cap) {
				cap = 2 * (len + 3);
				prefix = must_realloc(prefix, cap, 1);
			}
			memcpy(prefix + len, v->next ? " | " : "   ", 3);
			len += 3;
		}
		for (uint32_t c = v->first_child; c; c = g->nodes[c].next)
			n_children++;
		/* pushed last first, so that the first is printed first */
		sp += n_children;
		k = sp;
		for (uint32_t c = v->first_child; c; c = g->nodes[c].next)
			todo[--k] = (struct todo){c, n_children > 1, len};
	}
	free(prefix);
	free(todo);
}

/* graph-stats: a backtrace's line */
static void put_stats_backtrace(struct output *o, const struct paths *ps,
				uint32_t node, uint32_t *chain)
{
	size_t n = 0;

	outbuf_str(o->out, "B\t");
	outbuf_u64(o->out, ps->nodes[node].calls);
	outbuf_putc(o->out, '\t');
	outbuf_u64(o->out, ps->nodes[node].total);
	for (uint32_t v = node; v; v = ps->nodes[v].parent)
		chain[n++] = v;
	for (size_t i = n; i-- > 0;) {
		outbuf_putc(o->out, '\t');
		put_name(o->out, ps->nodes[chain[i]].name);
	}
	outbuf_putc(o->out, '\n');
}

/* graph-stats: the callee tree in preorder, each node's depth below FUNC
 * first (iteratively, as put_tree). */
static void put_stats_tree(struct output *o, const struct gtree *g)
{
	struct todo {
		uint32_t id;
		size_t depth;
	} *todo = must_calloc(g->n, sizeof *todo);
	size_t sp = 0;

	todo[sp++] = (struct todo){0, 0};
	while (sp) {
		struct todo t = todo[--sp];
		const struct gnode *v = &g->nodes[t.id];
		size_t n_children = 0, k;

		outbuf_str(o->out, "C\t");
		outbuf_u64(o->out, t.depth);
		outbuf_putc(o->out, '\t');
		outbuf_u64(o->out, v->calls);
		outbuf_putc(o->out, '\t');
		outbuf_u64(o->out, v->total);
		outbuf_putc(o->out, '\t');
		put_name(o->out, v->name);
		outbuf_putc(o->out, '\n');
		for (uint32_t c = v->first_child; c; c = g->nodes[c].next)
			n_children++;
		sp += n_children;
		k = sp;
		for (uint32_t c = v->first_child; c; c = g->nodes[c].next)
			todo[--k] = (struct todo){c, t.depth + 1};
	}
	free(todo);
}

static void graph_finish(struct output *o)
{
	struct graph_state *gs = o->state;
	struct paths *ps = &gs->paths;
	struct outbuf *out = o->out;
	uint32_t target = 0, *merged, *chain;
	bool *below;
	size_t hits = 0;
	struct gtree g;

	for (uint32_t id = 1; id < agg_names_end(); id++)
		if (!strcmp(agg_name(id), gs->function))
			target = id;
	if (gs->stats) {
		outbuf_str(out, "# graph-stats\t");
		outbuf_escaped(out, gs->function, strlen(gs->function),
			       ESCAPE_TEXT);
		outbuf_putc(out, '\n');
	} else {
		outbuf_str(out, "# Function Call Graph for '");
		outbuf_escaped(out, gs->function, strlen(gs->function),
			       ESCAPE_TEXT);
		outbuf_str(out, "'\n=============== BACKTRACE "
				"===============\n");
	}
	/* below[i]: node i is a call of the function or below one;
	 * merged[i]: its node in the callee tree */
	below = must_calloc(ps->n, sizeof *below);
	merged = must_calloc(ps->n, sizeof *merged);
	chain = must_calloc(ps->n, sizeof *chain);
	memset(&g, 0, sizeof g);
	g.cap = 64;
	g.nodes = must_calloc(g.cap, sizeof *g.nodes);
	g.n = 1;
	g.nodes[0].name = target;
	agg_map_init(&g.index);
	for (uint32_t i = 1; target && i < ps->n; i++) {
		const struct path_node *pn = &ps->nodes[i];
		if (below[pn->parent]) {
			below[i] = true;
			merged[i] = gtree_child(&g, merged[pn->parent],
						pn->name);
			g.nodes[merged[i]].calls += pn->calls;
			g.nodes[merged[i]].total += pn->total;
		} else if (pn->name == target) {
			below[i] = true;
			merged[i] = 0;
			g.nodes[0].calls += pn->calls;
			g.nodes[0].total += pn->total;
			if (gs->stats) {
				hits++;
				put_stats_backtrace(o, ps, i, chain);
				continue;
			}
			outbuf_str(out, " backtrace #");
			outbuf_u64(out, hits++);
			outbuf_str(out, ": hit ");
			outbuf_u64(out, pn->calls);
			if (!o->opts->no_duration) {
				outbuf_str(out, ", time ");
				put_time(o, pn->total);
			}
			outbuf_putc(out, '\n');
			put_backtrace(o, ps, i, chain);
			outbuf_putc(out, '\n');
		}
	}
	if (gs->stats) {
		if (hits)
			put_stats_tree(o, &g);
	} else {
		if (!hits)
			outbuf_putc(out, '\n');
		outbuf_str(out, "========== FUNCTION CALL GRAPH ==========\n"
				"# TOTAL TIME   FUNCTION\n");
		if (hits)
			put_tree(o, &g);
	}
	if (!hits)
		warn_msg(0, "graph: no call of '%s' in the trace",
			 gs->function);
	outbuf_flush(out);
	agg_map_free(&g.index);
	free(g.nodes);
	free(below);
	free(merged);
	free(chain);
	paths_free(ps);
}

static const struct output_ops graph_ops = {
	.entry = paths_entry,
	.leaf = paths_leaf,
	.close = paths_close,
	.park = paths_park,
	.unpark = paths_unpark,
	.drop_parked = agg_drop_parked,
	.finish = graph_finish,
};

void out_graph_init(struct output *o, const struct output_options *oo)
{
	static struct graph_state gs;

	paths_init(&gs.paths);
	gs.function = oo->function ? oo->function : "main";
	gs.stats = false;
	o->ops = &graph_ops;
	o->leaves = true;
	o->no_values = true; /* shows no values */
	o->state = &gs;
}

void out_graph_stats_init(struct output *o, const struct output_options *oo)
{
	out_graph_init(o, oo);
	((struct graph_state *)o->state)->stats = true;
}
