/* cmd_diff.c -- ctrace diff A B: where two runs' calls first part ways.
 *
 * Reads both sessions as ctrace-symbolize's tree, thread by thread
 * (--per-thread, threads by serial: the first thread of each run is 1),
 * without durations, with the options given (filters apply to both;
 * --ignore FUNC hides FUNC and its callees in both, as -N does).  A
 * thread is its sequence of calls in the order they were made, each call
 * one key: its depth, function, arguments and return value as the tree
 * shows them (an opening line and its closing line's value together),
 * pointer values (0x...) aside, since addresses differ between runs;
 * times are never compared.
 *
 * Per thread, from the first call that differs on, the two sequences are
 * aligned by their longest common subsequence (Myers' O(ND) diff): a call
 * made in one run only, or with other values, shows as such and the runs
 * are back in step after it.  Each divergence (a run of calls between two
 * calls both runs share) is printed in order with the calls open there
 * (its stack, outermost first) and its calls of A and of B, then a count.
 * The alignment keeps (D+1)^2 positions for D differing calls and stops
 * at DIFF_MAX_EDITS of them in a thread, which it says, summarizing the
 * rest as the calls found more often in one run.  A thread in one run
 * only is said so.
 *
 * Exit status: 0 when the runs agree, 1 when they differ, 2 for a bad
 * command line or a run that cannot be read (a damaged trace too: half a
 * run would differ), 127 when ctrace-symbolize cannot run.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "launcher.h"
#include "symbolize.h"

/* The most calls of a thread the alignment lets differ: it keeps
 * (D+1)^2 positions (at most 8 MiB) and takes up to D passes over the rest
 * of the thread. */
#define DIFF_MAX_EDITS 1000
/* Divergences printed per thread, and calls per side of each. */
#define DIFF_MAX_SHOWN 50
#define DIFF_MAX_CALLS 10

struct call {
	char *open;   /* its line as the tree shows it, indented */
	char *key;    /* the same, with its return value: the identity */
	size_t depth; /* its indentation */
	size_t line;  /* its line in the thread, from 1 */
};

struct thread_calls {
	char *id; /* the thread column as shown: serial, or pid/serial */
	struct call *calls;
	size_t n;
	/* calls still open while reading: indices into calls */
	size_t *open, n_open;
	size_t lines;
};

struct run {
	struct thread_calls *threads;
	size_t n;
};

/* ctrace-symbolize's output for ARGS; 1 says "they differ": trouble is
 * 2, as for diff(1). */
static char *capture(char **args)
{
	int status;
	char *out = symbolize_capture(args, &status);

	if (status != 0)
		exit(2);
	return out;
}

/* "0x7ffd1234" -> "0x?" in place; not the offset of a function without
 * a symbol, "prog+0x1139": it is the same in every run, and masked, any
 * two such functions would be the same call. */
static void mask_pointers(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		if (r[0] == '0' && r[1] == 'x' && isxdigit((unsigned char)r[2]) &&
		    (r == s ||
		     (!isalnum((unsigned char)r[-1]) && r[-1] != '+'))) {
			/* at least three bytes read before three are written */
			r += 3;
			while (isxdigit((unsigned char)*r))
				r++;
			memcpy(w, "0x?", 3);
			w += 3;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

static size_t indent(const char *line)
{
	size_t n = 0;

	while (line[n] == ' ')
		n++;
	return n;
}

static char *concat(const char *a, size_t na, const char *b, size_t nb)
{
	char *s = must_alloc(na + nb + 1);

	memcpy(s, a, na);
	memcpy(s + na, b, nb);
	s[na + nb] = '\0';
	return s;
}

/* One line of a thread's tree: a call opened ("f(x=1) {"), closed ("} =
 * 0;" and f's name in a comment: its value goes to the opener's key) or
 * whole ("g() = 1;"). */
static void add_line(struct thread_calls *t, char *line)
{
	size_t len = strlen(line), depth = indent(line);
	const char *bare = line + depth;

	t->lines++;
	if (bare[0] == '}') {
		/* "} = 0;" and a comment -> " = 0" */
		const char *v = bare + 1, *e = strstr(v, " /*");
		size_t n = e ? (size_t)(e - v) : strlen(v);
		if (n && v[n - 1] == ';')
			n--;
		while (t->n_open) {
			struct call *c = &t->calls[t->open[--t->n_open]];
			if (c->depth < depth)
				break; /* not its opener: keep it open */
			if (c->depth == depth) {
				char *k = concat(c->key, strlen(c->key), v, n);
				free(c->key);
				c->key = k;
				break;
			}
		}
		return;
	}
	if (t->n % 1024 == 0) {
		t->calls = must_realloc(t->calls, t->n + 1024, sizeof *t->calls);
		t->open = must_realloc(t->open, t->n + 1024, sizeof *t->open);
	}
	struct call *c = &t->calls[t->n];
	c->open = line;
	c->depth = depth;
	c->line = t->lines;
	if (len >= 2 && !strcmp(line + len - 2, " {")) {
		c->key = concat(line, len - 2, "", 0);
		t->open[t->n_open++] = t->n;
	} else {
		c->key = concat(line, len && line[len - 1] == ';' ? len - 1 : len,
				"", 0);
	}
	t->n++;
}

/* The tree's lines, "  [    1] | main() {", by thread. */
static void parse_tree(char *text, struct run *run)
{
	struct thread_calls *cur = NULL;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *open = strchr(line, '['), *close, *bar;
		if (line[0] == '#' || !open || !(close = strchr(open, ']')) ||
		    !(bar = strstr(close, "| ")))
			continue;
		*close = '\0';
		char *id = open + 1;
		while (*id == ' ')
			id++;
		if (!cur || strcmp(cur->id, id)) {
			cur = NULL;
			for (size_t i = 0; i < run->n; i++)
				if (!strcmp(run->threads[i].id, id))
					cur = &run->threads[i];
			if (!cur) {
				run->threads = must_realloc(run->threads,
							    run->n + 1,
							    sizeof *run->threads);
				cur = &run->threads[run->n++];
				memset(cur, 0, sizeof *cur);
				cur->id = id;
			}
		}
		char *call = bar + 2;
		mask_pointers(call);
		add_line(cur, call);
	}
}

static const struct thread_calls *find_thread(const struct run *r,
					      const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->threads[i].id, id))
			return &r->threads[i];
	return NULL;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The calls from `from` on, without indentation, sorted, in a new array. */
static char **calls_from(const struct thread_calls *t, size_t from)
{
	char **v = must_alloc((t->n - from + 1) * sizeof *v);

	for (size_t i = from; i < t->n; i++)
		v[i - from] = t->calls[i].key + t->calls[i].depth;
	qsort(v, t->n - from, sizeof *v, str_cmp);
	return v;
}

/* What one run has more of than the other, from calls fa and fb on: per
 * call, how many more times one run made it. */
static void summarize(const struct thread_calls *a,
		      const struct thread_calls *b, size_t fa, size_t fb)
{
	size_t na = a->n - fa, nb = b->n - fb, i = 0, k = 0, shown = 0;
	size_t more = 0;
	char **va = calls_from(a, fa), **vb = calls_from(b, fb);

	while (i < na || k < nb) {
		const char *key = i == na ? vb[k] : k == nb ? va[i]
				: strcmp(va[i], vb[k]) < 0 ? va[i] : vb[k];
		size_t ca = 0, cb = 0;
		while (i < na && !strcmp(va[i], key))
			i++, ca++;
		while (k < nb && !strcmp(vb[k], key))
			k++, cb++;
		if (ca == cb)
			continue;
		if (shown++ < 20)
			printf("  %zu more in %s: %s\n", ca > cb ? ca - cb : cb - ca,
			       ca > cb ? "A" : "B", key);
		else
			more++;
	}
	if (more)
		printf("  ... and %zu more\n", more);
	free(va);
	free(vb);
}

static bool same(const struct call *x, const struct call *y)
{
	return x->depth == y->depth && !strcmp(x->key, y->key);
}

/* Myers' greedy O(ND) alignment of a[0..n) and b[0..m): marks in ka and
 * kb the calls of a longest common subsequence.  hist keeps, for each D,
 * the furthest x reached on each diagonal k in -D..D (at D*D + k + D);
 * -1 where no path of D edits reaches the diagonal inside the grid.
 * False when more than DIFF_MAX_EDITS calls differ. */
static long hist_at(const long *hist, long d, long k)
{
	if (d < 0 || k < -d || k > d)
		return -1;
	return hist[d * d + k + d];
}

/* The diagonal that step D of the path on diagonal k comes from, and the
 * x it reaches there before its snake; -1 when none. */
static long step_from(const long *hist, long d, long k, long n, long m,
		      long *from)
{
	long down = hist_at(hist, d - 1, k + 1);  /* b's call inserted */
	long right = hist_at(hist, d - 1, k - 1); /* a's call left out */

	if (down >= 0 && down - k > m)
		down = -1;
	if (right >= 0 && right + 1 > n)
		right = -1;
	if (down < 0 && right < 0)
		return -1;
	if (right < 0 || (down >= 0 && down >= right + 1)) {
		*from = k + 1;
		return down;
	}
	*from = k - 1;
	return right + 1;
}

static bool align(const struct call *a, long n, const struct call *b, long m,
		  bool *ka, bool *kb)
{
	long max = DIFF_MAX_EDITS, found = -1, from;
	size_t size = 64; /* grown with D: (D+1)^2 entries */
	long *hist = must_alloc(size * sizeof *hist);

	for (long d = 0; d <= max && found < 0; d++) {
		while ((size_t)((d + 1) * (d + 1)) > size) {
			size *= 2;
			hist = must_realloc(hist, size, sizeof *hist);
		}
		for (long k = -d; k <= d; k += 2) {
			long x = d == 0 ? 0 : step_from(hist, d, k, n, m, &from);
			if (x >= 0 && x - k >= 0 && x - k <= m) {
				while (x < n && x - k < m && same(&a[x], &b[x - k]))
					x++;
			} else {
				x = -1;
			}
			hist[d * d + k + d] = x;
			if (x == n && x - k == m) {
				found = d;
				break;
			}
		}
	}
	if (found < 0) {
		free(hist);
		return false;
	}
	long x = n, y = m;
	for (long d = found; d > 0; d--) {
		long k = x - y, sx, sy;
		long px = hist_at(hist, d - 1, 0), py;
		long start = step_from(hist, d, k, n, m, &from);
		px = hist_at(hist, d - 1, from);
		py = px - from;
		sx = start;
		sy = start - k;
		while (x > sx && y > sy) {
			x--, y--;
			ka[x] = kb[y] = true;
		}
		x = px;
		y = py;
	}
	while (x > 0 && y > 0) {
		x--, y--;
		ka[x] = kb[y] = true;
	}
	free(hist);
	return true;
}

/* The calls open at call i (its callers), outermost first: stack[0..*n),
 * kept from one call to the next (i never goes back). */
static void stack_to(const struct thread_calls *t, size_t i, size_t *stack,
		     size_t *n, size_t *next)
{
	for (; *next <= i && *next < t->n; (*next)++) {
		size_t depth = t->calls[*next].depth;
		while (*n && t->calls[stack[*n - 1]].depth >= depth)
			(*n)--;
		if (*next < i)
			stack[(*n)++] = *next;
	}
}

static void put_side(const char *side, const struct thread_calls *t,
		     size_t from, size_t to)
{
	for (size_t i = from; i < to && i < from + DIFF_MAX_CALLS; i++)
		printf("  %s %s\n", side, t->calls[i].key);
	if (to - from > DIFF_MAX_CALLS)
		printf("  %s ... and %zu more calls\n", side,
		       to - from - DIFF_MAX_CALLS);
}

/* The line of the first call that differs, i: A's, or B's when A ended
 * (the lines before it are the same in both). */
static size_t first_line(const struct thread_calls *a,
			 const struct thread_calls *b, size_t i)
{
	return i < a->n ? a->calls[i].line : b->calls[i].line;
}

/* "line 12 of A", or "the end of A" */
static void put_where(const char *side, const struct thread_calls *t,
		      size_t i)
{
	if (i < t->n)
		printf("line %zu of %s", t->calls[i].line, side);
	else
		printf("the end of %s", side);
}

/* Prints thread a/b's divergences in order; false if there is none. */
static bool diff_thread(const struct thread_calls *a,
			const struct thread_calls *b)
{
	size_t i = 0;

	while (i < a->n && i < b->n && same(&a->calls[i], &b->calls[i]))
		i++;
	if (i == a->n && i == b->n)
		return false;

	size_t n = a->n - i, m = b->n - i;
	bool *ka = must_alloc(n + 1), *kb = must_alloc(m + 1);
	memset(ka, 0, n + 1);
	memset(kb, 0, m + 1);
	size_t *sa = must_alloc((a->n + 1) * sizeof *sa);
	size_t *sb = must_alloc((b->n + 1) * sizeof *sb);
	size_t na = 0, nb = 0, nexta = 0, nextb = 0;
	size_t x = 0, y = 0, hunks = 0, only_a = 0, only_b = 0;
	bool aligned = align(a->calls + i, (long)n, b->calls + i, (long)m,
			     ka, kb);

	while (aligned && (x < n || y < m)) {
		if (x < n && y < m && ka[x] && kb[y]) {
			x++, y++;
			continue;
		}
		size_t x0 = x, y0 = y;
		while (x < n && !ka[x])
			x++;
		while (y < m && !kb[y])
			y++;
		only_a += x - x0;
		only_b += y - y0;
		if (++hunks > DIFF_MAX_SHOWN)
			continue;
		/* the stack of the side that has a call here, A's first */
		const struct thread_calls *t = x > x0 ? a : b;
		size_t at = i + (x > x0 ? x0 : y0);
		size_t *st = t == a ? sa : sb, *ns = t == a ? &na : &nb;
		stack_to(t, at, st, ns, t == a ? &nexta : &nextb);
		if (hunks == 1) {
			printf("thread %s: first divergence at line %zu of its "
			       "calls\n", a->id, first_line(a, b, i));
		} else {
			printf("thread %s: divergence %zu at ", a->id, hunks);
			put_where("A", a, i + x0);
			printf(", ");
			put_where("B", b, i + y0);
			printf("\n");
		}
		for (size_t k = 0; k < *ns; k++)
			printf("    %s\n", t->calls[st[k]].open);
		if (x == x0)
			printf("  A (nothing)\n");
		put_side("A", a, i + x0, i + x);
		if (y == y0)
			printf("  B (nothing)\n");
		put_side("B", b, i + y0, i + y);
	}
	if (aligned) {
		if (hunks > DIFF_MAX_SHOWN)
			printf("thread %s: ... and %zu more divergences\n",
			       a->id, hunks - DIFF_MAX_SHOWN);
		printf("thread %s: %zu divergence%s: %zu call%s only in A, "
		       "%zu only in B\n", a->id, hunks, hunks == 1 ? "" : "s",
		       only_a, only_a == 1 ? "" : "s", only_b);
	} else {
		printf("thread %s: first divergence at line %zu of its calls\n",
		       a->id, first_line(a, b, i));
		stack_to(a, i, sa, &na, &nexta);
		for (size_t k = 0; k < na; k++)
			printf("    %s\n", a->calls[sa[k]].open);
		printf("  A %s\n", i < a->n ? a->calls[i].key : "(ends here)");
		printf("  B %s\n", i < b->n ? b->calls[i].key : "(ends here)");
		printf("thread %s: more than %d calls differ after it: not "
		       "aligned; the calls found more often in one run:\n",
		       a->id, DIFF_MAX_EDITS);
		summarize(a, b, i, i);
	}
	free(ka);
	free(kb);
	free(sa);
	free(sb);
	return true;
}

int cmd_diff(int argc, char **argv)
{
	char **opts = must_alloc((2 * argc + 8) * sizeof *opts);
	const char *runs[2];
	int n_runs = 0, n = 0;
	bool end = false;

	opts[n++] = SYMBOLIZER;
	opts[n++] = "--format=tree";
	opts[n++] = "--no-duration";
	opts[n++] = "--thread-ids=serial";
	opts[n++] = "--per-thread";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!end && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			printf("Usage: ctrace diff [--ignore FUNC]... "
			       "[SYMBOLIZER-OPTION]... A B\n"
			       "Show where the calls of two runs differ, per "
			       "thread, in order: calls aligned by\n"
			       "their depth, function, arguments and return "
			       "value, pointer values and times\n"
			       "aside.\n\n"
			       "  --ignore=FUNC   leave out FUNC and its callees "
			       "(a pattern, as -N)\n\n"
			       "The other options are ctrace-symbolize's "
			       "(filters apply to both runs).\n"
			       "Exit status: 0 when the runs agree, 1 when they "
			       "differ, 2 for trouble.\n");
			return 0;
		}
		const char *ignore = NULL;
		if (!end && !strcmp(a, "--ignore")) {
			if (i + 1 == argc)
				usage_error("--ignore needs a function");
			ignore = argv[++i];
		} else if (!end && !strncmp(a, "--ignore=", 9)) {
			ignore = a + 9;
		}
		if (ignore) {
			opts[n++] = "-N";
			opts[n++] = (char *)ignore;
			continue;
		}
		enum symbolize_word w = end ? SYMBOLIZE_OPERAND
					    : symbolize_word(argv, i);
		if (w == SYMBOLIZE_END) {
			end = true;
			continue;
		}
		if (w == SYMBOLIZE_OPERAND) {
			if (n_runs == 2)
				usage_error("diff compares two traces, not more");
			runs[n_runs++] = a;
			continue;
		}
		opts[n++] = argv[i];
		if (w == SYMBOLIZE_OPTION_VALUE)
			opts[n++] = argv[++i];
	}
	if (n_runs != 2)
		usage_error("diff compares two traces: A B");

	struct run run[2];
	memset(run, 0, sizeof run);
	for (int r = 0; r < 2; r++) {
		opts[n] = "--";
		opts[n + 1] = (char *)runs[r];
		opts[n + 2] = NULL;
		parse_tree(capture(opts), &run[r]);
	}
	bool differ = false;
	for (size_t i = 0; i < run[0].n; i++) {
		const struct thread_calls *a = &run[0].threads[i];
		const struct thread_calls *b = find_thread(&run[1], a->id);
		if (!b) {
			printf("thread %s: only in A (%zu calls)\n", a->id, a->n);
			differ = true;
		} else {
			differ |= diff_thread(a, b);
		}
	}
	for (size_t i = 0; i < run[1].n; i++) {
		const struct thread_calls *b = &run[1].threads[i];
		if (!find_thread(&run[0], b->id)) {
			printf("thread %s: only in B (%zu calls)\n", b->id, b->n);
			differ = true;
		}
	}
	if (!differ)
		printf("the runs agree: %s and %s\n", runs[0], runs[1]);
	fflush(stdout);
	return ferror(stdout) ? 2 : differ;
}
