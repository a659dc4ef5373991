/* out_folded.c -- folded stacks, for flamegraph.pl and speedscope.
 *
 *   main;parse;lex 1234
 *
 * One line per distinct call path whose weight is not zero: the names from
 * the outermost call to the innermost, joined by ';', and the weight: the
 * self time of the calls on that path in ns, or with --weight=calls their
 * number.  Lines come depth first, siblings sorted by name.
 *
 * The call paths and their weights are paths.c's, shared with the flame
 * graph.
 */
#include <stdlib.h>

#include "output/output.h"

/* ---------------------------------------------------------------------------
 * The output
 * ------------------------------------------------------------------------ */

/* The weight of node's descendants (not its own); `todo` has room for
 * every node. */
static uint64_t subtree_weight(const struct paths *ps, const uint32_t *order,
			       const uint32_t *first, uint32_t node,
			       bool calls, uint32_t *todo)
{
	uint64_t sum = 0;
	size_t n = 0;

	todo[n++] = node;
	while (n) {
		uint32_t v = todo[--n];
		for (uint32_t i = first[v]; i < first[v + 1]; i++) {
			const struct path_node *c = &ps->nodes[order[i]];
			sum += calls ? c->calls : c->self;
			todo[n++] = order[i];
		}
	}
	return sum;
}

static void folded_finish(struct output *o)
{
	struct paths *ps = o->state;
	struct outbuf *out = o->out;
	uint32_t *order, *first;
	/* depth-first walk: stack of (node, next child), and the path text */
	uint32_t *stack = must_calloc(ps->n + 1, sizeof *stack);
	uint32_t *next = must_calloc(ps->n + 1, sizeof *next);
	size_t *path_len = must_calloc(ps->n + 1, sizeof *path_len);
	struct outbuf path;
	size_t sp = 0;

	paths_children(ps, &order, &first);
	outbuf_init_memory(&path);
	stack[0] = 0;
	next[0] = first[0];
	path_len[0] = 0;
	sp = 1;
	while (sp) {
		uint32_t node = stack[sp - 1];
		uint32_t c;
		const struct path_node *n;
		size_t len;

		if (next[sp - 1] >= first[node + 1]) {
			sp--;
			continue;
		}
		c = order[next[sp - 1]++];
		n = &ps->nodes[c];
		/* the path so far lives in path.buf, or path.mem if long */
		len = path_len[sp - 1];
		outbuf_flush(&path);
		path.mem_len = len;
		if (len)
			outbuf_putc(&path, ';');
		outbuf_escaped(&path, agg_name(n->name), agg_name_len(n->name),
			       ESCAPE_FOLDED);
		outbuf_flush(&path);
		{
			uint64_t w = ps->weight_calls ? n->calls : n->self;
			if (w) {
				outbuf_write(out, path.mem, path.mem_len);
				outbuf_putc(out, ' ');
				outbuf_u64(out, w);
				outbuf_putc(out, '\n');
			}
		}
		stack[sp] = c;
		next[sp] = first[c];
		path_len[sp] = path.mem_len;
		sp++;
		if (o->opts->max_depth && sp - 1 == o->opts->max_depth &&
		    first[c] < first[c + 1]) {
			/* c's callees and theirs: one "[deeper]" frame */
			uint64_t w = subtree_weight(ps, order, first, c,
						    ps->weight_calls,
						    stack + sp);
			if (w) {
				outbuf_write(out, path.mem, path.mem_len);
				outbuf_write(out, ";[deeper] ", 10);
				outbuf_u64(out, w);
				outbuf_putc(out, '\n');
			}
			sp--;
		}
	}
	outbuf_flush(out);
	outbuf_free_memory(&path);
	free(stack);
	free(next);
	free(path_len);
	free(order);
	free(first);
	paths_free(ps);
}

static const struct output_ops folded_ops = {
	.entry = paths_entry,
	.leaf = paths_leaf,
	.close = paths_close,
	.park = paths_park,
	.unpark = paths_unpark,
	.drop_parked = agg_drop_parked,
	.lost = paths_lost,
	.end_trace = paths_end_trace,
	.finish = folded_finish,
};

void out_folded_init(struct output *o, const struct output_options *oo)
{
	static struct paths ps;

	paths_init(&ps);
	ps.weight_calls = oo->weight_calls;
	o->ops = &folded_ops;
	o->leaves = true;
	o->no_values = true; /* shows no values */
	o->state = &ps;
}
