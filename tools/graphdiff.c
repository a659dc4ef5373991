/* graphdiff.c -- ctrace graph FUNC --diff OTHER: which call paths to FUNC
 * and which of its callee paths changed between two sessions.
 *
 * Runs ctrace-symbolize --format=graph-stats --function=FUNC twice with
 * graph's options, on OTHER (the baseline) and on the traces given
 * (trace.bin when none), and prints the graph's two parts with both
 * sessions' numbers:
 *
 *   # Function Call Graph for 'inner' (base -> new)
 *   =============== BACKTRACE ===============
 *    backtrace #0: hit 1 -> 2 (+1), time 0.300 us -> 0.900 us (+0.600 us, +200.0%)
 *      [0] main
 *      [1] inner
 *
 *   ========== FUNCTION CALL GRAPH ==========
 *   #  TOTAL base           new        change        %   (CALLS) FUNCTION
 *        0.300 us      0.900 us     +0.600 us  +200.0% : (1 -> 2) inner
 *
 * A backtrace is a whole call path from a thread's outermost call down to
 * FUNC, a node of the call graph a path below FUNC: each is matched by
 * its functions' names, so that a path found in one session only is
 * "new" or "gone".  Backtraces come by the largest change of their total
 * time first, whichever its sign (then of their calls, then in the new
 * session's order); the call graph keeps its tree, callees in the order
 * of their first call in the new session, then those of the baseline
 * alone.  Memory grows with the number of distinct call paths, as the
 * graph's own.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphdiff.h"
#include "launcher.h"
#include "symbolize.h"

enum { BASE, NEW };

struct backtrace {
	char *path; /* the names, tab-separated, outermost first */
	uint64_t calls[2], total[2];
	bool in[2];
	size_t order;
};

struct node {
	char *name;
	size_t parent, first_child, last_child, next; /* 0: none */
	uint64_t calls[2], total[2];
	bool in[2];
};

static struct backtrace *bts;
static size_t n_bts;
static struct node *nodes; /* nodes[0] unused: 0 means none */
static size_t n_nodes;
static char *function; /* as graph-stats' header gives it, escaped */

static char *run(char **args)
{
	int status;
	char *out = symbolize_capture(args, &status);

	if (status != 0)
		exit(status);
	return out;
}

static void bad_line(const char *line)
{
	error_msg(SYMBOLIZER " --format=graph-stats: cannot read '%s'", line);
	exit(1);
}

/* The number at *p, up to a tab, and p past it. */
static uint64_t field(char **p, const char *line)
{
	char *end;
	uint64_t v = strtoull(*p, &end, 10);

	if (end == *p || *end != '\t')
		bad_line(line);
	*p = end + 1;
	return v;
}

static void add_backtrace(int side, uint64_t calls, uint64_t total,
			  const char *path)
{
	struct backtrace *b = NULL;

	for (size_t i = 0; i < n_bts && !b; i++)
		if (!strcmp(bts[i].path, path))
			b = &bts[i];
	if (!b) {
		bts = must_realloc(bts, n_bts + 1, sizeof *bts);
		b = &bts[n_bts];
		memset(b, 0, sizeof *b);
		b->path = must_strdup(path);
		b->order = n_bts++;
	}
	b->in[side] = true;
	b->calls[side] += calls;
	b->total[side] += total;
}

/* The child of parent (0: the root's own level) named name. */
static size_t child(size_t parent, const char *name)
{
	size_t c = parent ? nodes[parent].first_child : (n_nodes > 1 ? 1 : 0);

	for (; c; c = nodes[c].next)
		if (!strcmp(nodes[c].name, name))
			return c;
	if (!parent && n_nodes > 1)
		bad_line(name); /* a second root: not FUNC's graph */
	if (n_nodes == 0)
		n_nodes = 1;
	nodes = must_realloc(nodes, n_nodes + 1, sizeof *nodes);
	c = n_nodes++;
	memset(&nodes[c], 0, sizeof nodes[c]);
	nodes[c].name = must_strdup(name);
	nodes[c].parent = parent;
	if (parent) {
		if (nodes[parent].last_child)
			nodes[nodes[parent].last_child].next = c;
		else
			nodes[parent].first_child = c;
		nodes[parent].last_child = c;
	}
	return c;
}

/* graph-stats' lines into the backtraces and the tree, as session side. */
static void parse(char *text, int side)
{
	size_t *stack = NULL, cap = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *p = line + 2;
		if (!strncmp(line, "# graph-stats\t", 14)) {
			if (!function)
				function = must_strdup(line + 14);
			continue;
		}
		if (line[0] == '#')
			continue;
		if (line[0] == 'B' && line[1] == '\t') {
			uint64_t calls = field(&p, line);
			uint64_t total = field(&p, line);
			add_backtrace(side, calls, total, p);
		} else if (line[0] == 'C' && line[1] == '\t') {
			uint64_t depth = field(&p, line);
			uint64_t calls = field(&p, line);
			uint64_t total = field(&p, line);
			size_t parent = 0, c;
			if (depth > 0) {
				if (depth > cap || !stack[depth - 1])
					bad_line(line);
				parent = stack[depth - 1];
			}
			c = child(parent, p);
			if (depth >= cap) {
				size_t old = cap;
				cap = 2 * depth + 16;
				stack = must_realloc(stack, cap, sizeof *stack);
				memset(stack + old, 0,
				       (cap - old) * sizeof *stack);
			}
			stack[depth] = c;
			if (depth + 1 < cap)
				stack[depth + 1] = 0;
			nodes[c].in[side] = true;
			nodes[c].calls[side] += calls;
			nodes[c].total[side] += total;
		} else {
			bad_line(line);
		}
	}
	free(stack);
}

static int64_t delta(const uint64_t v[2])
{
	return (int64_t)(v[NEW] - v[BASE]);
}

static uint64_t mag(int64_t d)
{
	return d < 0 ? -(uint64_t)d : (uint64_t)d;
}

static int bt_cmp(const void *a, const void *b)
{
	const struct backtrace *x = a, *y = b;
	uint64_t tx = mag(delta(x->total)), ty = mag(delta(y->total));
	uint64_t cx = mag(delta(x->calls)), cy = mag(delta(y->calls));

	if (tx != ty)
		return tx > ty ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The relative change, or why there is none, into buf. */
static const char *pct(char *buf, size_t size, const bool in[2],
		       const uint64_t v[2])
{
	if (!in[BASE])
		return "new";
	if (!in[NEW])
		return "gone";
	if (v[BASE] == 0)
		return v[NEW] ? "+inf%" : "0.0%";
	snprintf(buf, size, "%+.1f%%",
		 100.0 * (double)delta(v) / (double)v[BASE]);
	return buf;
}

static void us(char *buf, size_t size, int64_t ns, bool sign)
{
	uint64_t a = mag(ns);

	snprintf(buf, size, "%s%llu.%03llu us",
		 ns < 0 ? "-" : sign ? "+" : "", (unsigned long long)(a / 1000),
		 (unsigned long long)(a % 1000));
}

static void put_backtraces(void)
{
	char b[40], n[40], d[40], p[40];

	qsort(bts, n_bts, sizeof *bts, bt_cmp);
	for (size_t i = 0; i < n_bts; i++) {
		const struct backtrace *bt = &bts[i];
		size_t depth = 0;
		us(b, sizeof b, (int64_t)bt->total[BASE], false);
		us(n, sizeof n, (int64_t)bt->total[NEW], false);
		us(d, sizeof d, delta(bt->total), true);
		printf(" backtrace #%zu: hit %llu -> %llu (%+lld), time %s -> "
		       "%s (%s, %s)\n",
		       i, (unsigned long long)bt->calls[BASE],
		       (unsigned long long)bt->calls[NEW],
		       (long long)delta(bt->calls), b, n, d,
		       pct(p, sizeof p, bt->in, bt->total));
		for (const char *s = bt->path; s; depth++) {
			const char *tab = strchr(s, '\t');
			int len = tab ? (int)(tab - s) : (int)strlen(s);
			printf("   [%zu] %.*s\n", depth, len, s);
			s = tab ? tab + 1 : NULL;
		}
		printf("\n");
	}
}

/* The tree from node 1, depth first, without recursion (a call path can
 * be as deep as the program's stack); drawn as graph draws it. */
static void put_tree(void)
{
	struct todo {
		size_t id, len;
		bool branch;
	} *todo = must_alloc(n_nodes * sizeof *todo);
	char *prefix = NULL;
	size_t sp = 0, cap = 0;
	char b[40], n[40], d[40], p[40];

	todo[sp++] = (struct todo){1, 0, false};
	while (sp) {
		struct todo t = todo[--sp];
		const struct node *v = &nodes[t.id];
		size_t n_children = 0, len = t.len, k;

		us(b, sizeof b, (int64_t)v->total[BASE], false);
		us(n, sizeof n, (int64_t)v->total[NEW], false);
		us(d, sizeof d, delta(v->total), true);
		printf("%14s%14s%14s%9s : %.*s%s(%llu -> %llu) %s\n", b, n, d,
		       pct(p, sizeof p, v->in, v->total), (int)t.len,
		       prefix ? prefix : "", t.branch ? " +-" : "",
		       (unsigned long long)v->calls[BASE],
		       (unsigned long long)v->calls[NEW], v->name);
		if (t.branch) {
			if (len + 3 > cap) {
				cap = 2 * (len + 3);
				prefix = must_realloc(prefix, cap, 1);
			}
			memcpy(prefix + len, v->next ? " | " : "   ", 3);
			len += 3;
		}
		for (size_t c = v->first_child; c; c = nodes[c].next)
			n_children++;
		sp += n_children;
		k = sp;
		for (size_t c = v->first_child; c; c = nodes[c].next)
			todo[--k] = (struct todo){c, len, n_children > 1};
	}
	free(prefix);
	free(todo);
}

int graphdiff_run(const char *other, char **args)
{
	char **base, **now;

	symbolize_diff_args("graph-stats", other, args, &base, &now);
	/* the new session first: its order is the tree's */
	char *text_new = run(now), *text_base = run(base);
	parse(text_new, NEW);
	parse(text_base, BASE);
	printf("# Function Call Graph for '%s' (base -> new)\n"
	       "=============== BACKTRACE ===============\n",
	       function ? function : "");
	put_backtraces();
	if (!n_bts)
		printf("\n");
	printf("========== FUNCTION CALL GRAPH ==========\n"
	       "#%13s%14s%14s%9s   (CALLS) FUNCTION\n", "TOTAL base", "new",
	       "change", "%");
	if (n_nodes > 1)
		put_tree();
	free(text_new);
	free(text_base);
	fflush(stdout);
	return ferror(stdout) ? 1 : 0;
}
