/* reportdiff.c -- ctrace report --diff OTHER: two sessions side by side.
 *
 * Runs ctrace-symbolize --format=stats twice with report's options, on
 * OTHER (the baseline) and on the traces given (trace.bin when none), and
 * prints per function the calls, total and self time of both, the change
 * (new - baseline) and the change relative to the baseline:
 *
 *       Total time (base -> new, change)        Self time (...)   Calls  Function
 *
 * A function in one session only shows "new" or "gone" as its relative
 * change.  --sort=KEY (total, the default, self, calls or name) orders by
 * the largest change of KEY first, whichever its sign, or by name.
 * --avg-total and --avg-self show (and sort by) the time per call of each
 * session instead of the sum: a function called more often in one run is
 * then compared call for call.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "reportdiff.h"
#include "symbolize.h"

struct row {
	char *name;
	uint64_t v[2][3]; /* [base, new][calls, total, self] */
	bool in[2];
};

enum { CALLS, TOTAL, SELF };

/* ctrace-symbolize's output for ARGS; a comparison with a session read in
 * part would mislead: when it fails, what went wrong is on stderr and its
 * status is ours. */
static char *run(char **args)
{
	int status;
	char *out = symbolize_capture(args, &status);

	if (status != 0)
		exit(status);
	return out;
}

/* The rows so far, and an index of their names (open addressing, at
 * most half full): a program has tens of thousands of functions, and a
 * search of every row for each line was quadratic. */
struct table {
	struct row *rows;
	size_t n, cap;
	size_t *slot; /* row index + 1; 0: empty */
	size_t nslots; /* a power of two */
};

static size_t name_hash(const char *s)
{
	size_t h = 14695981039346656037u & SIZE_MAX;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

static void index_put(struct table *t, size_t i)
{
	size_t k = name_hash(t->rows[i].name) & (t->nslots - 1);

	while (t->slot[k])
		k = (k + 1) & (t->nslots - 1);
	t->slot[k] = i + 1;
}

static struct row *find(struct table *t, const char *name)
{
	size_t k;

	if (t->nslots) {
		k = name_hash(name) & (t->nslots - 1);
		for (; t->slot[k]; k = (k + 1) & (t->nslots - 1))
			if (!strcmp(t->rows[t->slot[k] - 1].name, name))
				return &t->rows[t->slot[k] - 1];
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->rows = must_realloc(t->rows, t->cap, sizeof *t->rows);
	}
	if (2 * (t->n + 1) > t->nslots) {
		free(t->slot);
		t->nslots = t->nslots ? 2 * t->nslots : 128;
		t->slot = must_realloc(NULL, t->nslots, sizeof *t->slot);
		memset(t->slot, 0, t->nslots * sizeof *t->slot);
		for (size_t i = 0; i < t->n; i++)
			index_put(t, i);
	}
	struct row *r = &t->rows[t->n];
	memset(r, 0, sizeof *r);
	r->name = must_strdup(name);
	index_put(t, t->n++);
	return r;
}

/* The stats format's lines into rows[][side]. */
static void parse(char *text, int side, struct table *t)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		char *f[4];
		int k = 0;
		for (char *p = line; k < 4; k++) {
			f[k] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (k != 3) {
			error_msg(SYMBOLIZER " --format=stats: cannot read '%s'",
				  line);
			exit(1);
		}
		struct row *r = find(t, f[0]);
		r->in[side] = true;
		for (int c = 0; c < 3; c++)
			r->v[side][c] = strtoull(f[c + 1], NULL, 10);
	}
}

static int sort_key = TOTAL; /* or -1: by name */
static bool average[3];      /* [TOTAL], [SELF]: per call, not the sum */

/* Column c of session `side`: the sum, or per call with --avg-*. */
static uint64_t value(const struct row *r, int side, int c)
{
	if (!average[c])
		return r->v[side][c];
	return r->v[side][CALLS] ? r->v[side][c] / r->v[side][CALLS] : 0;
}

static int64_t change(const struct row *r, int c)
{
	return (int64_t)(value(r, 1, c) - value(r, 0, c));
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (sort_key >= 0) {
		int64_t dx = change(x, sort_key), dy = change(y, sort_key);
		uint64_t ax = dx < 0 ? -(uint64_t)dx : (uint64_t)dx;
		uint64_t ay = dy < 0 ? -(uint64_t)dy : (uint64_t)dy;
		if (ax != ay)
			return ax > ay ? -1 : 1;
	}
	return strcmp(x->name, y->name);
}

/* ns as "12.345 us" in 11 columns, signed when asked */
static void put_us(int64_t ns, bool sign)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	char num[40];

	snprintf(num, sizeof num, "%s%llu.%03llu", ns < 0 ? "-" : sign ? "+" : "",
		 (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
	printf("%11s us", num);
}

static void put_pct(const struct row *r, int c)
{
	if (!r->in[0])
		printf("  %7s", "new");
	else if (!r->in[1])
		printf("  %7s", "gone");
	else if (value(r, 0, c) == 0)
		printf("  %7s", value(r, 1, c) ? "+inf%" : "0.0%");
	else
		printf("  %+6.1f%%", 100.0 * (double)change(r, c) /
					 (double)value(r, 0, c));
}

static void put_table(struct row *rows, size_t n)
{
	printf("%28s%53s%32s\n",
	       average[TOTAL] ? "Total time per call" : "Total time",
	       average[SELF] ? "Self time per call" : "Self time", "Calls");
	printf("%14s%14s%14s%9s  %14s%14s%14s%9s  %8s %8s %9s  %s\n",
	       "base", "new", "change", "%", "base", "new", "change", "%",
	       "base", "new", "change", "Function");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		for (int c = TOTAL; c <= SELF; c++) {
			put_us((int64_t)value(r, 0, c), false);
			put_us((int64_t)value(r, 1, c), false);
			put_us(change(r, c), true);
			put_pct(r, c);
			printf("  ");
		}
		printf("%8llu %8llu %+9lld  %s\n",
		       (unsigned long long)r->v[0][CALLS],
		       (unsigned long long)r->v[1][CALLS],
		       (long long)change(r, CALLS), r->name);
	}
}

/* Whether the option word A is --NAME (or a prefix of it, as
 * getopt_long takes) or holds the letter LETTER. */
static bool names_option(const char *a, const char *name, char letter)
{
	size_t count;
	const struct symbolize_option *o = symbolize_options(&count);

	if (a[1] == '-') {
		size_t len = strcspn(a + 2, "=");
		return len > 0 && !strncmp(a + 2, name, len);
	}
	for (const char *p = a + 1; *p; p++) {
		if (*p == letter)
			return true;
		for (size_t i = 0; i < count; i++)
			if (o[i].letter == *p && o[i].arg != SYMBOLIZE_ARG_NONE)
				return false; /* the rest is its value */
	}
	return false;
}

/* The options that would change what ctrace-symbolize writes, or where:
 * the table would then be read from nothing, or from another format. */
static void refuse_output_options(const char *a)
{
	static const struct {
		const char *name;
		char letter;
	} no[] = {{"output", 'o'}, {"format", 'f'}, {"per-thread", 0}};

	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		if (names_option(a, no[i].name, no[i].letter))
			usage_error("--diff prints one table of all threads to "
				    "standard output: '%s' is not supported "
				    "with it", a);
}

int reportdiff_run(char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	char **rest = must_alloc((size_t)(argc + 1) * sizeof *rest);
	int nr = 0;
	const char *other = NULL;
	bool end = false;

	/* report --diff's own words out, the rest is ctrace-symbolize's */
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!end && !strcmp(a, "--diff")) {
			if (i + 1 == argc)
				usage_error("--diff needs a trace to compare with");
			other = argv[++i];
			continue;
		}
		if (!end && !strncmp(a, "--diff=", 7)) {
			other = a + 7;
			continue;
		}
		if (!end && !strcmp(a, "--avg-total")) {
			average[TOTAL] = true;
			continue;
		}
		if (!end && !strcmp(a, "--avg-self")) {
			average[SELF] = true;
			continue;
		}
		enum symbolize_word w = end ? SYMBOLIZE_OPERAND
					    : symbolize_word(argv, i);
		const char *key = NULL;
		if (w == SYMBOLIZE_OPTION_VALUE && !strcmp(a, "--sort"))
			key = argv[i + 1];
		else if (w == SYMBOLIZE_OPTION && !strncmp(a, "--sort=", 7))
			key = a + 7;
		if (key) {
			if (!strcmp(key, "total"))
				sort_key = TOTAL;
			else if (!strcmp(key, "self"))
				sort_key = SELF;
			else if (!strcmp(key, "calls"))
				sort_key = CALLS;
			else if (!strcmp(key, "name"))
				sort_key = -1;
			else
				usage_error("--diff sorts by total, self, calls "
					    "or name, not '%s'", key);
			if (w == SYMBOLIZE_OPTION_VALUE)
				i++;
			continue;
		}
		if (w == SYMBOLIZE_END)
			end = true;
		else if (w != SYMBOLIZE_OPERAND)
			refuse_output_options(a);
		rest[nr++] = argv[i];
		if (w == SYMBOLIZE_OPTION_VALUE)
			rest[nr++] = argv[++i];
	}
	rest[nr] = NULL;
	if (!other)
		usage_error("--diff needs a trace to compare with");

	char **base, **now;
	symbolize_diff_args("stats", other, rest, &base, &now);
	struct table t = {0};
	parse(run(base), 0, &t);
	parse(run(now), 1, &t);
	qsort(t.rows, t.n, sizeof *t.rows, row_cmp);
	put_table(t.rows, t.n);
	fflush(stdout);
	return ferror(stdout) ? 1 : 0;
}
