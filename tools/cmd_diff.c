/* cmd_diff.c -- ctrace diff A B: where two runs' calls first part ways.
 *
 * Reads both sessions as ctrace-symbolize's tree, thread by thread
 * (--per-thread, threads by serial: the first thread of each run is 1),
 * without durations, with the options given (filters apply to both;
 * --ignore FUNC hides FUNC and its callees in both, as -N does).  Two
 * calls are the same when their lines are: the function, its arguments
 * and its return value as shown, pointer values (0x...) aside, since
 * addresses differ between runs; times are never compared.
 *
 * Per thread it prints the first line that differs, with the calls open
 * there (its stack, outermost first) and the two lines, then a summary of
 * what follows: the calls (with their arguments) found more often in one
 * run than in the other, from there to the end of the thread.  A thread
 * in one run only is said so.
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

struct thread_lines {
	char *id; /* the thread column as shown: serial, or pid/serial */
	char **lines;
	size_t n;
};

struct run {
	struct thread_lines *threads;
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

/* The tree's lines, "  [    1] | main() {", by thread. */
static void parse_tree(char *text, struct run *run)
{
	struct thread_lines *cur = NULL;

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
		cur->lines = must_realloc(cur->lines, cur->n + 1,
					  sizeof *cur->lines);
		cur->lines[cur->n++] = call;
	}
}

static const struct thread_lines *find_thread(const struct run *r,
					      const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->threads[i].id, id))
			return &r->threads[i];
	return NULL;
}

/* A line without its indentation. */
static const char *bare(const char *line)
{
	while (*line == ' ')
		line++;
	return line;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The calls (lines that open a call or are one) from `from` on, bare and
 * sorted, in a new array. */
static char **calls_from(const struct thread_lines *t, size_t from,
			 size_t *n)
{
	char **v = must_alloc((t->n - from + 1) * sizeof *v);

	*n = 0;
	for (size_t i = from; i < t->n; i++)
		if (bare(t->lines[i])[0] != '}')
			v[(*n)++] = (char *)bare(t->lines[i]);
	qsort(v, *n, sizeof *v, str_cmp);
	return v;
}

/* What one run has more of than the other, from the divergence on. */
static void summarize(const struct thread_lines *a, const struct thread_lines *b,
		      size_t from)
{
	size_t na, nb, i = 0, k = 0, shown = 0, more = 0;
	char **va = calls_from(a, from, &na), **vb = calls_from(b, from, &nb);

	while (i < na || k < nb) {
		int c = i == na ? 1 : k == nb ? -1 : strcmp(va[i], vb[k]);
		if (c == 0) {
			i++, k++;
			continue;
		}
		if (shown < 20)
			printf("  %s %s\n", c < 0 ? "only A:" : "only B:",
			       c < 0 ? va[i] : vb[k]);
		else
			more++;
		shown++;
		if (c < 0)
			i++;
		else
			k++;
	}
	if (more)
		printf("  ... and %zu more\n", more);
	free(va);
	free(vb);
}

/* Prints thread t's first divergence; false if there is none. */
static bool diff_thread(const struct thread_lines *a,
			const struct thread_lines *b)
{
	size_t i = 0;

	while (i < a->n && i < b->n && !strcmp(a->lines[i], b->lines[i]))
		i++;
	if (i == a->n && i == b->n)
		return false;
	printf("thread %s: first divergence at line %zu of its calls\n",
	       a->id, i + 1);
	/* the calls open there: a line ending in '{' opens one, a line
	 * starting with '}' closes it */
	size_t *stack = must_alloc((i + 1) * sizeof *stack), depth = 0;
	for (size_t k = 0; k < i; k++) {
		const char *l = a->lines[k];
		size_t len = strlen(l);
		if (bare(l)[0] == '}') {
			if (depth)
				depth--;
		} else if (len && l[len - 1] == '{') {
			stack[depth++] = k;
		}
	}
	for (size_t k = 0; k < depth; k++)
		printf("    %s\n", a->lines[stack[k]]);
	free(stack);
	printf("  A %s\n", i < a->n ? a->lines[i] : "(ends here)");
	printf("  B %s\n", i < b->n ? b->lines[i] : "(ends here)");
	summarize(a, b, i);
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
			       "Show where the calls of two runs first differ, "
			       "per thread: the function, its\n"
			       "arguments and its return value, pointer values "
			       "and times aside.\n\n"
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
		const struct thread_lines *a = &run[0].threads[i];
		const struct thread_lines *b = find_thread(&run[1], a->id);
		if (!b) {
			printf("thread %s: only in A (%zu lines)\n", a->id, a->n);
			differ = true;
		} else {
			differ |= diff_thread(a, b);
		}
	}
	for (size_t i = 0; i < run[1].n; i++) {
		const struct thread_lines *b = &run[1].threads[i];
		if (!find_thread(&run[0], b->id)) {
			printf("thread %s: only in B (%zu lines)\n", b->id, b->n);
			differ = true;
		}
	}
	if (!differ)
		printf("the runs agree: %s and %s\n", runs[0], runs[1]);
	fflush(stdout);
	return ferror(stdout) ? 2 : differ;
}
