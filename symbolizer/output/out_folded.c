/* out_folded.c -- folded stacks, for flamegraph.pl and speedscope.
 *
 *   main;parse;lex 1234
 *
 * One line per distinct call path whose weight is not zero: the names from
 * the outermost call to the innermost, joined by ';', and the weight: the
 * self time of the calls on that path in ns, or with --weight=calls their
 * number.  Lines come depth first, siblings sorted by name.
 *
 * Calls are added into a trie of call paths as they return (paths_*), so
 * memory grows with the number of distinct paths, never with the number
 * of events.
 */
#include <stdlib.h>

#include "output.h"

/* ---------------------------------------------------------------------------
 * Call paths
 * ------------------------------------------------------------------------ */

void paths_init(struct paths *ps)
{
	memset(ps, 0, sizeof *ps);
	u64map_init(&ps->index);
	ps->cap = 256;
	ps->nodes = must_calloc(ps->cap, sizeof *ps->nodes);
	ps->n = 1; /* the root */
}

void paths_free(struct paths *ps)
{
	agg_threads_free(&ps->threads);
	u64map_free(&ps->index);
	free(ps->nodes);
	memset(ps, 0, sizeof *ps);
}

static uint32_t node_of(struct paths *ps, uint32_t parent, uint32_t name)
{
	bool fresh;
	uint32_t *v = u64map_get(&ps->index, (uint64_t)parent << 32 | name,
				 (uint32_t)ps->n, &fresh);

	if (fresh) {
		if (ps->n == ps->cap) {
			ps->cap *= 2;
			ps->nodes = must_realloc(ps->nodes, ps->cap,
						 sizeof *ps->nodes);
		}
		ps->nodes[ps->n++] = (struct path_node){parent, name, 0, 0};
	}
	return *v;
}

static uint32_t parent_node(struct agg_thread *at, size_t depth)
{
	struct agg_frame *f = agg_parent(at, depth);

	return f ? f->ref : 0;
}

void paths_entry(struct paths *ps, struct thread *th, const struct pair *p,
		 size_t depth)
{
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	uint32_t node = node_of(ps, parent_node(at, depth), agg_name_id(p));
	struct agg_frame *f = agg_push(at, depth);

	f->ref = node;
	f->name = 1;
	f->child_ns = 0;
}

/* A call at `node` of duration ns (UINT64_MAX: unknown). */
static void account(struct paths *ps, struct agg_thread *at, uint32_t node,
		    uint64_t ns, uint64_t child_ns, size_t depth)
{
	struct path_node *n = &ps->nodes[node];
	struct agg_frame *parent = agg_parent(at, depth);

	n->calls++;
	if (ns == UINT64_MAX)
		return;
	n->self += ns > child_ns ? ns - child_ns : 0;
	if (parent)
		parent->child_ns += ns;
}

void paths_leaf(struct paths *ps, struct thread *th, const struct pair *p,
		uint64_t start, uint64_t end, size_t depth)
{
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	uint32_t node;

	if (at->depth > depth) /* only after damage */
		at->depth = depth;
	node = node_of(ps, parent_node(at, depth), agg_name_id(p));
	account(ps, at, node, trace_duration(th->trace, start, end), 0, depth);
}

void paths_close(struct paths *ps, struct thread *th, const struct pair *p,
		 uint64_t start, uint64_t end, size_t depth,
		 enum close_kind kind)
{
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	struct agg_frame *f = kind == CLOSE_BEFORE_TRACE ? NULL
							 : agg_pop(at, depth);
	uint64_t ns = kind == CLOSE_RETURNED
			      ? trace_duration(th->trace, start, end)
			      : UINT64_MAX;

	if (f && f->name) {
		account(ps, at, f->ref, ns, f->child_ns, depth);
	} else {
		uint32_t node = node_of(ps, 0, agg_name_id(p));
		account(ps, at, node, ns, 0, 0);
	}
}

static const struct path_node *sort_nodes;

static int child_cmp(const void *a, const void *b)
{
	const struct path_node *x = &sort_nodes[*(const uint32_t *)a];
	const struct path_node *y = &sort_nodes[*(const uint32_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(agg_name(x->name), agg_name(y->name));
}

void paths_children(const struct paths *ps, uint32_t **order_out,
		    uint32_t **first_out)
{
	uint32_t *order = must_calloc(ps->n, sizeof *order);
	uint32_t *first = must_calloc(ps->n + 1, sizeof *first);
	size_t k = 0;

	for (uint32_t i = 1; i < ps->n; i++)
		order[k++] = i;
	sort_nodes = ps->nodes;
	qsort(order, k, sizeof *order, child_cmp);
	/* first[i]: where node i's children start */
	for (size_t i = 0; i < k; i++)
		first[ps->nodes[order[i]].parent + 1]++;
	for (size_t i = 1; i <= ps->n; i++)
		first[i] += first[i - 1];
	*order_out = order;
	*first_out = first;
}

/* ---------------------------------------------------------------------------
 * The output
 * ------------------------------------------------------------------------ */

struct folded_state {
	struct paths ps;
};

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
	struct folded_state *fs = o->state;
	struct paths *ps = &fs->ps;
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
			uint64_t w = o->opts->weight_calls ? n->calls : n->self;
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
						    o->opts->weight_calls,
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

static void folded_begin_trace(struct output *o, struct trace *t)
{
	(void)o, (void)t;
}

static void folded_entry(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t ticks, size_t depth)
{
	struct folded_state *fs = o->state;

	(void)ticks;
	paths_entry(&fs->ps, th, p, depth);
}

static void folded_leaf(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, uint64_t end,
			size_t depth)
{
	struct folded_state *fs = o->state;

	paths_leaf(&fs->ps, th, p, start, end, depth);
}

static void folded_close(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t start, uint64_t end,
			 size_t depth, enum close_kind kind)
{
	struct folded_state *fs = o->state;

	paths_close(&fs->ps, th, p, start, end, depth, kind);
}

static void folded_lost(struct output *o, struct thread *th, uint64_t count,
			unsigned reason, size_t depth)
{
	(void)o, (void)th, (void)count, (void)reason, (void)depth;
}

static void folded_end_trace(struct output *o, struct trace *t)
{
	(void)o, (void)t;
}

static const struct output_ops folded_ops = {
	.begin_trace = folded_begin_trace,
	.entry = folded_entry,
	.leaf = folded_leaf,
	.close = folded_close,
	.lost = folded_lost,
	.end_trace = folded_end_trace,
	.finish = folded_finish,
};

void output_folded_init(struct output *o)
{
	static struct folded_state state;

	paths_init(&state.ps);
	o->ops = &folded_ops;
	o->leaves = true;
	o->state = &state;
}
