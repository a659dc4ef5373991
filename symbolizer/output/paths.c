/* paths.c -- the call paths of folded stacks and flame graphs.
 *
 * Both formats weigh the same thing: each distinct call path (the names
 * from the outermost call to the innermost) with the self time, or the
 * number, of the calls on it.  Calls are added into a trie of call paths
 * as they return, by the output callbacks here, which both formats use as
 * theirs; only their finish() differs: out_folded.c prints one line per
 * path, out_flamegraph.c draws a box per path.  Memory grows with the
 * number of distinct paths, never with the number of events.
 */
#include <stdlib.h>

#include "output/output.h"

/* The name of the frame of lost events, interned as a function's. */
static struct func lost_func = {
	.name = PATHS_LOST_NAME,
	.name_len = sizeof PATHS_LOST_NAME - 1,
	.plain_name = true,
};
static const struct pair lost_pair = {.func = &lost_func};

void paths_init(struct paths *ps)
{
	lost_func.name_id = 0; /* the names start afresh */
	memset(ps, 0, sizeof *ps);
	agg_map_init(&ps->index);
	ps->cap = 256;
	ps->nodes = must_calloc(ps->cap, sizeof *ps->nodes);
	ps->n = 1; /* the root */
}

void paths_free(struct paths *ps)
{
	agg_threads_free(&ps->threads);
	agg_map_free(&ps->index);
	free(ps->nodes);
	memset(ps, 0, sizeof *ps);
	agg_names_free();
}

static uint32_t node_of(struct paths *ps, uint32_t parent, uint32_t name)
{
	bool fresh;
	uint32_t *v = agg_map_get(&ps->index, (uint64_t)parent << 32 | name,
				  (uint32_t)ps->n, &fresh);

	if (fresh) {
		if (ps->n == ps->cap) {
			ps->cap *= 2;
			ps->nodes = must_realloc(ps->nodes, ps->cap,
						 sizeof *ps->nodes);
		}
		ps->nodes[ps->n++] = (struct path_node){parent, name, 0, 0, 0};
	}
	return *v;
}

static uint32_t parent_node(struct agg_thread *at, size_t depth)
{
	struct agg_frame *f = agg_parent(at, depth);

	return f ? f->ref : 0;
}

void paths_entry(struct output *o, struct thread *th, const struct pair *p,
		 uint64_t ticks, size_t depth)
{
	struct paths *ps = o->state;
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	uint32_t node = node_of(ps, parent_node(at, depth), agg_name_id(p));
	struct agg_frame *f = agg_push(at, depth);

	(void)ticks;

	f->ref = node;
	f->name = 1;
	f->edge_ref = 0;
	f->resumed = th->resumed;
	f->counted = false; /* agg_park() reads it */
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
	n->total += ns;
	if (parent)
		parent->child_ns += ns;
}

void paths_leaf(struct output *o, struct thread *th, const struct pair *p,
		uint64_t start, uint64_t end, size_t depth)
{
	struct paths *ps = o->state;
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	uint32_t node;

	if (at->depth > depth) /* only after damage */
		agg_truncate(at, depth);
	node = node_of(ps, parent_node(at, depth), agg_name_id(p));
	account(ps, at, node, trace_duration(th->trace, start, end), 0, depth);
}

void paths_close(struct output *o, struct thread *th, const struct pair *p,
		 uint64_t start, uint64_t end, size_t depth,
		 enum close_kind kind)
{
	struct paths *ps = o->state;
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	struct agg_frame *f = kind == CLOSE_BEFORE_TRACE ? NULL
							 : agg_pop(at, depth);
	uint64_t ns = kind == CLOSE_RETURNED
			      ? trace_duration(th->trace, start, end)
			      : UINT64_MAX;

	/* counted once: when the thread first left it for another stack */
	if (f && f->resumed)
		return;
	if (f && f->name) {
		account(ps, at, f->ref, ns, f->child_ns, depth);
	} else {
		uint32_t node = node_of(ps, 0, agg_name_id(p));
		account(ps, at, node, ns, 0, 0);
	}
}

void paths_park(struct output *o, struct thread *th, size_t depth, size_t n,
		void **state)
{
	struct paths *ps = o->state;

	*state = agg_park(agg_thread_get(&ps->threads, th), depth, n, false);
}

void paths_unpark(struct output *o, struct thread *th, size_t depth,
		  size_t n, void *state)
{
	struct paths *ps = o->state;
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	uint32_t parent, was;
	struct agg_seg *s;

	if (!state)
		return;
	was = state ? ((struct agg_parked *)state)->seg.parent_ref : 0;
	s = agg_unpark(at, depth, n, state);
	parent = parent_node(at, depth);
	if (parent == was)
		return;
	/* under another caller: its path and its callees' are others (the
	 * coroutine resumed from elsewhere), node by node */
	for (size_t i = 0; i < s->n; i++) {
		struct agg_frame *f = &s->frames[i];
		agg_work++;
		if (!f->name)
			break;
		f->ref = node_of(ps, parent, ps->nodes[f->ref].name);
		parent = f->ref;
	}
}

/* count events lost under `parent` (a node), weighed by their number. */
static void lost_under(struct paths *ps, uint32_t parent, uint64_t count)
{
	/* found first, then indexed: making it may move the nodes, and
	 * the array read in the same expression could be the old one */
	uint32_t node = node_of(ps, parent, agg_name_id(&lost_pair));
	struct path_node *n = &ps->nodes[node];

	n->calls = n->calls + count < n->calls ? UINT64_MAX : n->calls + count;
	n->self = n->self + count < n->self ? UINT64_MAX : n->self + count;
}

void paths_lost(struct output *o, struct thread *th, uint64_t count,
		unsigned reason, size_t depth)
{
	struct paths *ps = o->state;
	struct agg_thread *at = agg_thread_get(&ps->threads, th);
	const struct agg_frame *f = agg_parent(at, depth);

	(void)reason;
	lost_under(ps, f && f->name ? f->ref : 0, count);
}

void paths_end_trace(struct output *o, struct trace *t)
{
	uint64_t count = trace_lost_unplaced(t);

	if (count)
		lost_under(o->state, 0, count);
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

