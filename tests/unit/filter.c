/* filter.c -- the rules of the symbolizer's filters (-F, -N, -H, -D, -t,
 * --tid, --time-range, --match), as doc/views.md's "Filters" states them.
 *
 * Each row gives options to filter_option() and filter_ready(), wraps a
 * recording output with filter_wrap(), feeds it one fixed call tree as the
 * replay stage would (leaves as leaf(), calls with callees as entry() and
 * close()), and compares what the output was shown with the row's
 * expectation.  The tree, times in ns since the start of the trace:
 *
 *   main            0 .. 1000
 *     parse_sum       100 .. 600
 *       parse_product   150 .. 200   (50 ns, a leaf)
 *       parse_product   300 .. 500   (200 ns)
 *         helper          350 .. 360
 *     print_result    700 .. 900
 *       helper          750 .. 760
 *
 * Rows marked `gone` feed the same tree with two calls that did not
 * return: print_result left by longjmp (closed "no exit recorded" at 900)
 * and main still running when the thread's data ended ("unfinished" at
 * 1000).
 *
 * What the output saw is written "name@depth{" for an entry, "}" for its
 * close and "name@depth;" for a leaf, separated by spaces. */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "tap.h"

/* ---------------------------------------------------------------------------
 * The recording output
 * ------------------------------------------------------------------------ */

static char seen[1024];

static void put(const char *s)
{
	size_t n = strlen(seen);
	snprintf(seen + n, sizeof seen - n, "%s%s", n ? " " : "", s);
}

static void rec_entry(struct output *o, struct thread *th,
		      const struct pair *p, uint64_t ticks, size_t depth)
{
	char buf[64];
	(void)o, (void)th, (void)ticks;
	snprintf(buf, sizeof buf, "%s@%zu{", p->func->name, depth);
	put(buf);
}

static void rec_leaf(struct output *o, struct thread *th,
		     const struct pair *p, uint64_t start, uint64_t end,
		     size_t depth)
{
	char buf[64];
	(void)o, (void)th, (void)start, (void)end;
	snprintf(buf, sizeof buf, "%s@%zu;", p->func->name, depth);
	put(buf);
}

static void rec_close(struct output *o, struct thread *th,
		      const struct pair *p, uint64_t start, uint64_t end,
		      size_t depth, enum close_kind kind)
{
	(void)o, (void)th, (void)p, (void)start, (void)end, (void)depth,
		(void)kind;
	put("}");
}

static const struct output_ops rec_ops = {
	.entry = rec_entry,
	.leaf = rec_leaf,
	.close = rec_close,
};

/* ---------------------------------------------------------------------------
 * The call tree
 * ------------------------------------------------------------------------ */

enum { F_MAIN, F_SUM, F_PRODUCT, F_HELPER, F_PRINT, N_FUNCS };
static const char *const names[N_FUNCS] = {
	"main", "parse_sum", "parse_product", "helper", "print_result",
};

static const struct step {
	char kind; /* 'E' entry, 'L' leaf, 'C' close */
	int fn;
	uint64_t start, end;
} tree[] = {
	{'E', F_MAIN, 0, 0},
	{'E', F_SUM, 100, 0},
	{'L', F_PRODUCT, 150, 200},
	{'E', F_PRODUCT, 300, 0},
	{'L', F_HELPER, 350, 360},
	{'C', F_PRODUCT, 300, 500},
	{'C', F_SUM, 100, 600},
	{'E', F_PRINT, 700, 0},
	{'L', F_HELPER, 750, 760},
	{'C', F_PRINT, 700, 900},
	{'C', F_MAIN, 0, 1000},
};

/* The whole tree, as shown without a filter. */
#define ALL "main@0{ parse_sum@1{ parse_product@2; parse_product@2{ " \
	    "helper@3; } } print_result@1{ helper@2; } }"

/* ---------------------------------------------------------------------------
 * The rows
 * ------------------------------------------------------------------------ */

#define MATCH FILTER_OPT_MATCH
#define TID FILTER_OPT_TID
#define RANGE FILTER_OPT_TIME_RANGE

static const struct row {
	const char *name;
	struct {
		int code;
		const char *value;
	} opts[3];
	const char *shown;
} rows[] = {
	{"no rule: every call", {{0, NULL}}, ALL},

	/* "-F PATTERN | only these functions and what they call" */
	{"-F: the function and its callees, at depth 0",
	 {{'F', "parse_sum"}},
	 "parse_sum@0{ parse_product@1; parse_product@1{ helper@2; } }"},
	{"-F: a glob, each match shown",
	 {{'F', "parse_*"}},
	 "parse_sum@0{ parse_product@1; parse_product@1{ helper@2; } }"},
	{"-F: a function called outside -F shows with its callees",
	 {{'F', "print_result"}},
	 "print_result@0{ helper@1; }"},
	/* "Patterns are globs on the whole name" */
	{"-F: a glob matches the whole name, not part of it",
	 {{'F', "product"}},
	 ""},
	{"-F: two patterns, either matches",
	 {{'F', "parse_product"}, {'F', "print_result"}},
	 "parse_product@0; parse_product@0{ helper@1; } "
	 "print_result@0{ helper@1; }"},
	/* "or extended regular expressions with `--match=regex`" */
	{"--match=regex: matches anywhere in the name",
	 {{'F', "product"}, {MATCH, "regex"}},
	 "parse_product@0; parse_product@0{ helper@1; }"},
	{"--match=regex: anchors hold",
	 {{'F', "^print|_sum$"}, {MATCH, "regex"}},
	 "parse_sum@0{ parse_product@1; parse_product@1{ helper@2; } } "
	 "print_result@0{ helper@1; }"},
	{"--match=glob after regex: globs again",
	 {{'F', "product"}, {MATCH, "regex"}, {MATCH, "glob"}},
	 ""},

	/* "-N PATTERN | hide these functions and what they call"; "A call
	 * whose callees are all hidden is shown as a leaf." */
	{"-N: hidden with its callees, the caller a leaf",
	 {{'N', "parse_product"}},
	 "main@0{ parse_sum@1; print_result@1{ helper@2; } }"},
	{"-N: every call of the name, at any depth",
	 {{'N', "helper"}},
	 "main@0{ parse_sum@1{ parse_product@2; parse_product@2; } "
	 "print_result@1; }"},
	{"-N on the outermost call: nothing",
	 {{'N', "main"}},
	 ""},

	/* "-H PATTERN | hide these functions only; their callees take their
	 * place" */
	{"-H: callees take its place and depth",
	 {{'H', "parse_sum"}},
	 "main@0{ parse_product@1; parse_product@1{ helper@2; } "
	 "print_result@1{ helper@2; } }"},
	{"-H on the outermost call: its callees at depth 0",
	 {{'H', "main"}},
	 "parse_sum@0{ parse_product@1; parse_product@1{ helper@2; } } "
	 "print_result@0{ helper@1; }"},

	/* "-D DEPTH | hide calls DEPTH levels or more below the outermost
	 * shown call" */
	{"-D 2: two levels shown",
	 {{'D', "2"}},
	 "main@0{ parse_sum@1; print_result@1; }"},
	{"-D 1: the outermost call only",
	 {{'D', "1"}},
	 "main@0;"},
	{"-D 0: nothing",
	 {{'D', "0"}},
	 ""},

	/* "When filters combine, the first rule that applies wins: `--tid`;
	 * inside a hidden subtree; `-N` (so `-N` beats `-F` and `-H`);
	 * outside every `-F` function; `-H`; `-D` (counting shown calls
	 * only, so relative to the `-F` function); `-t`." */
	{"-N beats -F",
	 {{'F', "parse_*"}, {'N', "parse_product"}},
	 "parse_sum@0;"},
	{"-N beats -H",
	 {{'H', "parse_sum"}, {'N', "parse_sum"}},
	 "main@0{ print_result@1{ helper@2; } }"},
	{"-N inside -F hides that subtree only",
	 {{'F', "parse_*"}, {'N', "helper"}},
	 "parse_sum@0{ parse_product@1; parse_product@1; }"},
	{"-F then -H: a hidden -F function's callees take its place",
	 {{'F', "parse_sum"}, {'H', "parse_sum"}},
	 "parse_product@0; parse_product@0{ helper@1; }"},
	/* doc/views.md's example: -F 'parse_*' -D 2 */
	{"-D counts from the -F function",
	 {{'F', "parse_*"}, {'D', "2"}},
	 "parse_sum@0{ parse_product@1; parse_product@1; }"},
	{"-D counts shown calls only (-H)",
	 {{'H', "parse_sum"}, {'D', "2"}},
	 "main@0{ parse_product@1; parse_product@1; print_result@1; }"},

	/* "-t TIME | hide calls shorter than TIME" */
	{"-t 100ns: shorter calls hidden with their callees",
	 {{'t', "100ns"}},
	 "main@0{ parse_sum@1{ parse_product@2; } print_result@1; }"},
	{"-t 200ns: a call of exactly TIME shows",
	 {{'t', "200ns"}},
	 "main@0{ parse_sum@1{ parse_product@2; } print_result@1; }"},
	{"-t 201ns: a call 1 ns shorter than TIME is hidden",
	 {{'t', "201ns"}},
	 "main@0{ parse_sum@1; }"},
	{"-t 1us: the call that lasts 1 us only",
	 {{'t', "1us"}},
	 "main@0;"},
	{"-t 0: no rule",
	 {{'t', "0"}},
	 ALL},
	{"-t after -D: both apply",
	 {{'D', "2"}, {'t', "300ns"}},
	 "main@0{ parse_sum@1; }"},

	/* "--time-range=START~END | only calls starting in this range"; a
	 * call starting before START is hidden alone (its callees may start
	 * in the range), one starting at or after END with its callees. */
	{"--time-range: calls starting inside",
	 {{RANGE, "100ns~600ns"}},
	 "parse_sum@0{ parse_product@1; parse_product@1{ helper@2; } }"},
	{"--time-range: a start at END is outside",
	 {{RANGE, "~700ns"}},
	 "main@0{ parse_sum@1{ parse_product@2; parse_product@2{ "
	 "helper@3; } } }"},
	{"--time-range: a start at START is inside",
	 {{RANGE, "700ns~"}},
	 "print_result@0{ helper@1; }"},
	{"--time-range: START alone, callees take the caller's place",
	 {{RANGE, "300ns~"}},
	 "parse_product@0{ helper@1; } print_result@0{ helper@1; }"},

	/* "--tid=ID,... | only these threads (kernel tid or serial,
	 * whichever `--thread-ids` shows, or a process's pid)" */
	{"--tid: the kernel tid", {{TID, "4242"}}, ALL},
	{"--tid: the serial", {{TID, "2"}}, ALL},
	{"--tid: the process's pid", {{TID, "4200"}}, ALL},
	{"--tid: among others", {{TID, "7,4242"}}, ALL},
	{"--tid: another thread: nothing", {{TID, "4243"}}, ""},
	{"--tid beats -F", {{TID, "7"}, {'F', "main"}}, ""},
};

/* The same tree with print_result and main gone.  A call that did not
 * return is never shown as a leaf ("} name (unfinished)", "(no exit
 * recorded)" close it); with -t it is kept when it ran TIME or longer
 * before it was found gone. */
static const struct row gone_rows[] = {
	{"gone, no rule: every call", {{0, NULL}}, ALL},
	{"gone: callees all hidden, not a leaf",
	 {{'N', "helper"}},
	 "main@0{ parse_sum@1{ parse_product@2; parse_product@2; } "
	 "print_result@1{ } }"},
	{"gone, -t 100ns: kept, it ran 200 ns",
	 {{'t', "100ns"}},
	 "main@0{ parse_sum@1{ parse_product@2; } print_result@1{ } }"},
	{"gone, -t 300ns: hidden, it ran 200 ns",
	 {{'t', "300ns"}},
	 "main@0{ parse_sum@1; }"},
	{"gone, -t 1us: unfinished after 1000 ns, kept",
	 {{'t', "1us"}},
	 "main@0{ }"},
	{"gone, -t 1001ns: unfinished after 1000 ns, hidden",
	 {{'t', "1001ns"}},
	 ""},
};

/* Options refused (filter_option or filter_ready says why). */
static const struct bad {
	int code;
	const char *value;
} bad[] = {
	{'D', ""}, {'D', "x"}, {'D', "2x"}, {'D', "-1"},
	{'t', "5"}, {'t', "5 ms"}, {'t', "-5ms"}, {'t', "ms"},
	{MATCH, "pcre"}, {MATCH, ""},
	{TID, ""}, {TID, "abc"}, {TID, "1,,2"}, {TID, "1;2"}, {TID, "-1"},
	{RANGE, "10ms"}, {RANGE, "20ms~10ms"}, {RANGE, "10ms~10ms"},
	{RANGE, "x~1s"}, {RANGE, "1s~y"},
	{'Z', "1"},
};

/* ---------------------------------------------------------------------------
 * Running a row
 * ------------------------------------------------------------------------ */

static struct func funcs[N_FUNCS];
static struct pair pairs[N_FUNCS];

static void feed(struct output *o, bool gone)
{
	struct thread_info ti = {.serial = 2, .tid = 4242};
	struct trace t = {.pid = 4200, .ticks_are_ns = true,
			  .ns_per_tick = 1.0, .n_threads = 1};
	struct thread th = {.trace = &t, .info = &ti};

	t.threads = &ti;
	output_begin_trace(o, &t);
	for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
		const struct step *s = &tree[i];
		const struct pair *p = &pairs[s->fn];
		if (s->kind == 'E')
			output_entry(o, &th, p, s->start, 0);
		else if (s->kind == 'L')
			output_leaf(o, &th, p, s->start, s->end, 0);
		else
			output_close(o, &th, p, s->start, s->end, 0,
				     !gone ? CLOSE_RETURNED
				     : s->fn == F_PRINT ? CLOSE_NO_EXIT
				     : s->fn == F_MAIN ? CLOSE_UNFINISHED
						       : CLOSE_RETURNED);
	}
	output_end_trace(o, &t);
}

static const char *opt_name(int code)
{
	static char c[3] = "-";
	if (code == MATCH)
		return "--match";
	if (code == TID)
		return "--tid";
	if (code == RANGE)
		return "--time-range";
	c[1] = (char)code;
	return c;
}

static void run_row(const struct row *r, bool gone)
{
	struct filters *f = filter_new();
	struct output inner = {.ops = &rec_ops, .leaves = true};
	const char *err = NULL, *what = NULL;

	for (int i = 0; i < N_FUNCS; i++)
		funcs[i].filter_verdict = 0; /* cached per function */
	for (int i = 0; i < 3 && r->opts[i].code && !err; i++)
		err = filter_option(f, r->opts[i].code, r->opts[i].value);
	if (!err)
		err = filter_ready(f, &what);
	seen[0] = '\0';
	if (!err)
		feed(filter_wrap(f, &inner), gone);
	if (!tap_ok(!err && !strcmp(seen, r->shown), "%s", r->name)) {
		tap_diag("error: %s", err ? err : "none");
		tap_diag("want:  \"%s\"", r->shown);
		tap_diag("shown: \"%s\"", seen);
	}
	filter_free(f);
}

int main(void)
{
	for (int i = 0; i < N_FUNCS; i++) {
		funcs[i].name = names[i];
		funcs[i].name_len = strlen(names[i]);
		pairs[i].func = &funcs[i];
		funcs[i].addr = 0x1000 + 0x10 * (uint64_t)i;
	}
	tap_plan(TAP_COUNT(rows) + TAP_COUNT(gone_rows) + TAP_COUNT(bad) + 3);
	for (int i = 0; i < TAP_COUNT(rows); i++)
		run_row(&rows[i], false);
	for (int i = 0; i < TAP_COUNT(gone_rows); i++)
		run_row(&gone_rows[i], true);
	for (int i = 0; i < TAP_COUNT(bad); i++) {
		struct filters *f = filter_new();
		const char *err = filter_option(f, bad[i].code, bad[i].value);
		tap_ok(err != NULL, "%s '%s' refused (%s)",
		       opt_name(bad[i].code), bad[i].value,
		       err ? err : "accepted");
		filter_free(f);
	}

	/* Accepted forms the table's rows do not show. */
	{
		struct filters *f = filter_new();
		tap_ok(!filter_option(f, RANGE, "~") &&
			       !filter_option(f, RANGE, "1.5ms~2s") &&
			       !filter_option(f, TID, "1,2,3") &&
			       !filter_option(f, 'D', "10"),
		       "accepted: '~', '1.5ms~2s', '1,2,3', -D 10");
		filter_free(f);
	}
	/* A bad regular expression is found once --match is known. */
	{
		struct filters *f = filter_new();
		const char *what = NULL, *err;
		filter_option(f, 'F', "a(");
		err = filter_ready(f, &what);
		tap_ok(err == NULL, "glob 'a(' is a valid pattern");
		filter_option(f, MATCH, "regex");
		err = filter_ready(f, &what);
		tap_ok(err != NULL && what && !strcmp(what, "a("),
		       "--match=regex: 'a(' refused, named");
		filter_free(f);
	}
	return tap_done();
}
