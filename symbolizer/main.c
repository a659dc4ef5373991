/* main.c -- ctrace-symbolize: the command line.
 *
 * Exit status: 0 when every trace was read whole, 1 when one was damaged
 * or unreadable (everything valid in it is still printed), 2 on a usage
 * error.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolizer.h"
#include "tui/tui.h"
#include "values/values.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

enum {
	OPT_SRCLINE = 256,
	OPT_PER_THREAD,
	OPT_PER_PROCESS,
	OPT_FIELDS,
	OPT_NO_DURATION,
	OPT_THREAD_IDS,
	OPT_DEMANGLE,
	OPT_SEARCH_DIR,
	OPT_DEBUG_DIR,
	OPT_SORT,
	OPT_WEIGHT,
	OPT_BY_MODULE,
	OPT_NO_PROGRESS,
	OPT_MAX_DEPTH,
	OPT_LIST_OPTIONS,
	OPT_LIST_FORMATS,
	OPT_FUNCTION,
	OPT_COLOR,
	OPT_TUI,
	OPT_MATCH = FILTER_OPT_MATCH,
	OPT_TID = FILTER_OPT_TID,
	OPT_TIME_RANGE = FILTER_OPT_TIME_RANGE,
	OPT_WHERE = FILTER_OPT_WHERE,
	OPT_PID = FILTER_OPT_PID,
};

/* The commands: given as the first argument, they take the command line
 * instead of printing traces.  A command is a file of its own (cmd_*.c,
 * symbolizer.h) and a line here. */
struct command {
	const char *name;
	const char *synopsis; /* what follows the name, for --help */
	const char *help;     /* one line (--help wraps it) */
	int (*run)(int argc, char **argv); /* argv[0] is the name */
};

static const struct command commands[] = {
	{"--make-plan", "[-o FILE] PROGRAM...",
	 "write the capture plan the recorder's CTRACE_PLAN reads (strings, "
	 "less copying)", cmd_plan},
};

enum arg_kind { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

/* --tui */
static bool tui_mode;

/* --color */
static enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color_mode;

/* Whether output to fd is coloured: always, or for auto a terminal whose
 * TERM is set and not "dumb". */
static bool color_wanted(int fd)
{
	const char *term = getenv("TERM");

	if (color_mode != COLOR_AUTO)
		return color_mode == COLOR_ALWAYS;
	return isatty(fd) && term && *term && strcmp(term, "dumb") != 0;
}

/* An option: getopt_long's array, --help and --list-options are all made
 * from the table below, so that what is accepted, shown and listed for
 * the launcher cannot differ. */
struct option_def {
	const char *name;    /* the long name, without "--" */
	int code;            /* the short option's letter, or an OPT_ code */
	enum arg_kind arg;
	const char *meta;    /* the argument's name in --help */
	const char *help;    /* one line (--help wraps it) */
	const char *heading; /* --help's text before the option, or NULL */
	bool with_formats;   /* the help ends with the formats' names */
};

static const struct option_def option_defs[] = {
	{"format", 'f', ARG_REQUIRED, "FORMAT", "output format: ", NULL, true},
	{"output", 'o', ARG_REQUIRED, "FILE",
	 "write to FILE instead of standard output", NULL, false},
	{"srcline", OPT_SRCLINE, ARG_NONE, NULL,
	 "tree: append the call site (file.c:LINE)", NULL, false},
	{"per-thread", OPT_PER_THREAD, ARG_NONE, NULL,
	 "tree: one thread after another, not interleaved; report: one table "
	 "per thread", NULL, false},
	{"per-process", OPT_PER_PROCESS, ARG_NONE, NULL,
	 "tree: one process after another, its threads interleaved; report: "
	 "one table per process", NULL, false},
	{"fields", OPT_FIELDS, ARG_REQUIRED, "FIELD[,FIELD...]",
	 "tree: the columns before the function, in this order: duration, "
	 "tid, elapsed (since the start of the traces), timestamp (wall "
	 "clock), addr, module (default duration,tid)", NULL, false},
	{"sort", OPT_SORT, ARG_REQUIRED, "KEY",
	 "report: sort by total (default), calls, self, avg, max or name",
	 NULL, false},
	{"by-module", OPT_BY_MODULE, ARG_NONE, NULL,
	 "report: one row per module (the executable, each library; a "
	 "library call counts in its library) instead of per function",
	 NULL, false},
	{"max-depth", OPT_MAX_DEPTH, ARG_REQUIRED, "N",
	 "tree, folded: calls deeper than N (default 256) are not indented "
	 "further (tree) or are folded into one [deeper] frame (folded); 0: "
	 "no limit", NULL, false},
	{"function", OPT_FUNCTION, ARG_REQUIRED, "FUNC",
	 "graph, graph-stats: the function whose call paths and callees are shown "
	 "(default main)",
	 NULL, false},
	{"weight", OPT_WEIGHT, ARG_REQUIRED, "time|calls",
	 "folded, flamegraph: weigh stacks by self time in ns (default) or by "
	 "calls", NULL, false},
	{"filter", 'F', ARG_REQUIRED, "PATTERN",
	 "only these functions and their callees",
	 "\nFilters (every format):\n", false},
	{"notrace", 'N', ARG_REQUIRED, "PATTERN",
	 "hide these functions and their callees", NULL, false},
	{"hide", 'H', ARG_REQUIRED, "PATTERN",
	 "hide these functions, keep their callees", NULL, false},
	{"caller-filter", 'C', ARG_REQUIRED, "PATTERN",
	 "only these functions' callers and callees: the call paths that "
	 "lead to them, and what they call", NULL, false},
	{"trigger", 'T', ARG_REQUIRED, "PATTERN@ACTION",
	 "at these functions' calls: filter (as -F), trace_off, trace_on "
	 "(hide, show the calls entered from then on) or depth=N (show N "
	 "levels of calls from it), several separated by commas", NULL,
	 false},
	{"match", OPT_MATCH, ARG_REQUIRED, "glob|regex",
	 "how patterns match names (default glob)", NULL, false},
	{"depth", 'D', ARG_REQUIRED, "DEPTH",
	 "hide calls DEPTH levels deep or deeper", NULL, false},
	{"time-filter", 't', ARG_REQUIRED, "TIME",
	 "hide calls shorter than TIME (5us, 2ms...)", NULL, false},
	{"tid", OPT_TID, ARG_REQUIRED, "ID[,ID...]",
	 "only these threads (or processes)", NULL, false},
	{"pid", OPT_PID, ARG_REQUIRED, "PID[,PID...]",
	 "only these processes (all their threads; with --tid, the threads "
	 "listed of them)", NULL, false},
	{"time-range", OPT_TIME_RANGE, ARG_REQUIRED, "[START]~[END]",
	 "only calls that start in this time range, counted from the start "
	 "of the trace", NULL, false},
	{"where", OPT_WHERE, ARG_REQUIRED, "EXPR",
	 "only calls whose arguments or return value satisfy EXPR "
	 "('open.retval < 0 && name != \"x\"'), with their callers", NULL,
	 false},
	{"color", OPT_COLOR, ARG_REQUIRED, "auto|always|never",
	 "tree, graph: durations of 1 ms or more in yellow, of 1 s or more in "
	 "red, and the colours of -T color=COLOR; auto (default): when "
	 "standard output is a terminal and TERM is not dumb", NULL, false},
	{"tui", OPT_TUI, ARG_NONE, NULL,
	 "browse the calls on the terminal instead of printing them: the "
	 "tree, folded and searched, a report, a function's graph (ctrace "
	 "tui)", NULL, false},
	{"no-progress", OPT_NO_PROGRESS, ARG_NONE, NULL,
	 "no progress line on a terminal", NULL, false},
	{"no-duration", OPT_NO_DURATION, ARG_NONE, NULL,
	 "tree, graph: leave the duration column blank", "\n", false},
	{"thread-ids", OPT_THREAD_IDS, ARG_REQUIRED, "kernel|serial",
	 "kernel thread ids (default) or the trace's thread serials 1, 2, "
	 "3...", NULL, false},
	{"demangle", OPT_DEMANGLE, ARG_REQUIRED, "name|full|none",
	 "C++ names without parameters (default), with parameters, or "
	 "mangled", NULL, false},
	{"search-dir", OPT_SEARCH_DIR, ARG_REQUIRED, "DIR",
	 "look in DIR for binaries whose recorded path is missing "
	 "(repeatable)", NULL, false},
	{"debug-dir", OPT_DEBUG_DIR, ARG_REQUIRED, "DIR",
	 "look in DIR for separate debug files instead of /usr/lib/debug "
	 "(repeatable)", NULL, false},
	{"list-options", OPT_LIST_OPTIONS, ARG_NONE, NULL,
	 "list the options, one a line: name, letter, argument (none, "
	 "required, optional), help, separated by tabs, and exit",
	 NULL, false},
	{"list-formats", OPT_LIST_FORMATS, ARG_NONE, NULL,
	 "list the output formats, one a line: name and help, separated by "
	 "a tab, and exit", NULL, false},
	{"help", 'h', ARG_NONE, NULL, "show this help and exit", NULL, false},
	{"version", 'V', ARG_NONE, NULL, "show the version and exit", NULL,
	 false},
};

#define N_OPTIONS (sizeof option_defs / sizeof option_defs[0])

/* `text` from column 29, words wrapped before column 80, after `left`
 * (on a line of its own when it reaches column 28). */
static void put_wrapped(FILE *f, const char *left, const char *text)
{
	enum { COLUMN = 29, WIDTH = 79 };
	size_t col = strlen(left);

	fputs(left, f);
	if (col > COLUMN - 2) {
		fputc('\n', f);
		col = 0;
	}
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ");
		if (col > COLUMN && col + 1 + n > WIDTH) {
			fputc('\n', f);
			col = 0;
		}
		if (col < COLUMN) {
			fprintf(f, "%*s", (int)(COLUMN - col), "");
			col = COLUMN;
		} else {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += n;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* "tree, json, ... or flamegraph" ("tree (default), json..." if
 * mark_default), after `before` and before `after`: a string to free. */
static char *format_names(const char *before, bool mark_default,
			  const char *after)
{
	size_t size = strlen(before) + strlen(after) + 1;
	char *s, *p;

	for (const struct output_format *f = formats_all; f->name; f++)
		size += strlen(f->name) + sizeof " (default),";
	s = p = must_malloc(size);
	p = stpcpy(p, before);
	for (const struct output_format *f = formats_all; f->name; f++)
		p += sprintf(p, "%s%s%s",
			     f == formats_all ? ""
			     : f[1].name      ? ", "
					      : " or ",
			     f->name,
			     f == formats_all && mark_default ? " (default)"
							      : "");
	strcpy(p, after);
	return s;
}

/* An option's help as one line, in a buffer to free. */
static char *help_text(const struct option_def *d)
{
	if (d->with_formats)
		return format_names(d->help, true, "");
	return must_strndup(d->help, strlen(d->help));
}

static void usage(FILE *f)
{
	fputs("Usage: " PROGRAM_NAME " [OPTION]... TRACE...\n"
	      "Print the calls recorded in ctrace trace files.\n"
	      "\n",
	      f);
	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_def *d = &option_defs[i];
		char left[64], *help = help_text(d);
		int n = d->code < 256 ? snprintf(left, sizeof left,
						    "  -%c, --%s", d->code,
						    d->name)
					 : snprintf(left, sizeof left,
						    "      --%s", d->name);
		if (d->arg != ARG_NONE)
			snprintf(left + n, sizeof left - (size_t)n,
				 d->arg == ARG_OPTIONAL ? "[=%s]" : "=%s",
				 d->meta);
		if (d->heading)
			fputs(d->heading, f);
		put_wrapped(f, left, help);
		free(help);
	}
	fputs("\nFormats:\n", f);
	for (const struct output_format *fmt = formats_all; fmt->name; fmt++) {
		char left[64];
		snprintf(left, sizeof left, "  %s", fmt->name);
		put_wrapped(f, left, fmt->help);
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
		fprintf(f, "\n  " PROGRAM_NAME " %s %s\n", commands[i].name,
			commands[i].synopsis);
		put_wrapped(f, "", commands[i].help);
	}
	fputs("\n"
	      "Exit status: 0 on success, 1 if a trace is damaged (all of it "
	      "that is\n"
	      "valid is printed), 2 on a usage error.\n",
	      f);
}

/* --list-options: NAME<TAB>LETTER or -<TAB>none|required|optional<TAB>HELP,
 * for programs that pass options on (the launcher). */
static void list_options(void)
{
	static const char *const kinds[] = {
		[ARG_NONE] = "none",
		[ARG_REQUIRED] = "required",
		[ARG_OPTIONAL] = "optional",
	};

	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_def *d = &option_defs[i];
		char *help = help_text(d);
		if (d->code < 256)
			printf("%s\t%c\t%s\t%s\n", d->name, d->code,
			       kinds[d->arg], help);
		else
			printf("%s\t-\t%s\t%s\n", d->name, kinds[d->arg], help);
		free(help);
	}
}

/* --list-formats: NAME<TAB>HELP */
static void list_formats(void)
{
	for (const struct output_format *fmt = formats_all; fmt->name; fmt++)
		printf("%s\t%s\n", fmt->name, fmt->help);
}

/* getopt_long's arrays, from the table. */
/* Fills o[0..N_OPTIONS] (the last all zero) and shorts, getopt_long's two
 * views of option_defs. */
static void long_options(struct option *o, char *shorts, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_def *d = &option_defs[i];
		o[i].name = d->name;
		o[i].flag = NULL; /* o is on the caller's stack: getopt_long
				   * stores through a flag that is not NULL */
		o[i].has_arg = d->arg == ARG_NONE       ? no_argument
			       : d->arg == ARG_REQUIRED ? required_argument
							: optional_argument;
		o[i].val = d->code;
		if (d->code < 256 && n + 3 < size) {
			shorts[n++] = (char)d->code;
			if (d->arg != ARG_NONE)
				shorts[n++] = ':';
			if (d->arg == ARG_OPTIONAL)
				shorts[n++] = ':';
		}
	}
	shorts[n] = '\0';
	memset(&o[N_OPTIONS], 0, sizeof o[N_OPTIONS]);
}

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, PROGRAM_NAME ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROGRAM_NAME " --help' for more "
			"information.\n");
	exit(2);
}

/* --fields: names separated by commas, each once; 0 or -1. */
static int parse_fields(struct options *opts, const char *s)
{
	static const char *const names[N_FIELDS] = {
		[FIELD_DURATION] = "duration", [FIELD_TID] = "tid",
		[FIELD_ELAPSED] = "elapsed",   [FIELD_TIMESTAMP] = "timestamp",
		[FIELD_ADDR] = "addr",         [FIELD_MODULE] = "module",
	};
	bool seen[N_FIELDS] = {false};

	opts->n_fields = 0;
	for (;;) {
		size_t len = strcspn(s, ","), f;
		for (f = 0; f < N_FIELDS; f++)
			if (strlen(names[f]) == len && !strncmp(s, names[f], len))
				break;
		if (f == N_FIELDS || seen[f])
			return -1;
		seen[f] = true;
		opts->fields[opts->n_fields++] = (enum tree_field)f;
		if (!s[len])
			break;
		s += len + 1;
	}
	/* the default columns: the default line, exactly */
	if (opts->n_fields == 2 && opts->fields[0] == FIELD_DURATION &&
	    opts->fields[1] == FIELD_TID)
		opts->n_fields = 0;
	return 0;
}

static void parse_options(int argc, char **argv, struct options *opts,
			  const struct output_format **format,
			  struct output_options *oopts, const char **output)
{
	const char **dirs = NULL, **debug_dirs = NULL;
	size_t n_dirs = 0, n_debug_dirs = 0;
	const char *bad = NULL;
	char shorts[3 * N_OPTIONS + 1];
	struct option longs[N_OPTIONS + 1];
	long_options(longs, shorts, sizeof shorts);
	int c;

	memset(opts, 0, sizeof *opts);
	memset(oopts, 0, sizeof *oopts);
	*format = &formats_all[0];
	opts->progress = isatty(STDERR_FILENO);
	opts->resolve.demangle = RESOLVE_DEMANGLE_NAME;
	opts->max_depth = DEFAULT_MAX_DEPTH;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case 'f':
			*format = formats_find(optarg);
			if (!*format)
				usage_error(format_names("unknown format '%s' (",
							 false, ")"),
					    optarg);
			break;
		case OPT_SORT:
			if (formats_sort_key(optarg, &oopts->sort) < 0)
				usage_error("unknown sort key '%s' (total, "
					    "calls, self, avg, max or name)",
					    optarg);
			break;
		case OPT_WEIGHT:
			if (formats_weight(optarg, &oopts->weight_calls) < 0)
				usage_error("unknown weight '%s' (time or calls)",
					    optarg);
			break;
		case OPT_FUNCTION:
			oopts->function = optarg;
			break;
		case OPT_BY_MODULE:
			oopts->by_module = true;
			break;
		case OPT_COLOR:
			if (!strcmp(optarg, "auto"))
				color_mode = COLOR_AUTO;
			else if (!strcmp(optarg, "always"))
				color_mode = COLOR_ALWAYS;
			else if (!strcmp(optarg, "never"))
				color_mode = COLOR_NEVER;
			else
				usage_error("unknown colour mode '%s' (auto, "
					    "always or never)",
					    optarg);
			break;
		case OPT_TUI:
			tui_mode = true;
			break;
		case OPT_NO_PROGRESS:
			opts->progress = false;
			break;
		case OPT_MAX_DEPTH: {
			char *end;
			unsigned long long v;
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-' ||
			    v > SIZE_MAX / 4)
				usage_error("invalid --max-depth '%s'", optarg);
			opts->max_depth = (size_t)v;
			break;
		}
		case 'F':
		case 'N':
		case 'H':
		case 'C':
		case 'T':
		case 'D':
		case 't':
		case OPT_MATCH:
		case OPT_TID:
		case OPT_PID:
		case OPT_TIME_RANGE:
		case OPT_WHERE: {
			const char *why;
			if (!opts->filters)
				opts->filters = filter_new();
			why = filter_option(opts->filters, c, optarg);
			if (why)
				usage_error(why, optarg);
			break;
		}
		case 'o':
			*output = optarg;
			break;
		case OPT_SRCLINE:
			opts->srcline = true;
			break;
		case OPT_FIELDS:
			if (parse_fields(opts, optarg) < 0)
				usage_error("bad --fields '%s' (duration, tid, "
					    "elapsed, timestamp, addr or module, "
					    "each once, separated by commas)",
					    optarg);
			break;
		case OPT_PER_PROCESS:
			opts->per_process = true;
			break;
		case OPT_PER_THREAD:
			opts->per_thread = true;
			break;
		case OPT_NO_DURATION:
			opts->no_duration = true;
			break;
		case OPT_THREAD_IDS:
			if (!strcmp(optarg, "kernel"))
				opts->serial_ids = false;
			else if (!strcmp(optarg, "serial"))
				opts->serial_ids = true;
			else
				usage_error("unknown thread ids '%s' (kernel or "
					    "serial)",
					    optarg);
			break;
		case OPT_DEMANGLE:
			if (!strcmp(optarg, "name"))
				opts->resolve.demangle = RESOLVE_DEMANGLE_NAME;
			else if (!strcmp(optarg, "full"))
				opts->resolve.demangle = RESOLVE_DEMANGLE_FULL;
			else if (!strcmp(optarg, "none"))
				opts->resolve.demangle = RESOLVE_DEMANGLE_NONE;
			else
				usage_error("unknown demangling '%s' (name, "
					    "full or none)",
					    optarg);
			break;
		case OPT_SEARCH_DIR:
			dirs = must_realloc(dirs, n_dirs + 1, sizeof *dirs);
			dirs[n_dirs++] = optarg;
			break;
		case OPT_DEBUG_DIR:
			debug_dirs = must_realloc(debug_dirs, n_debug_dirs + 1,
						  sizeof *debug_dirs);
			debug_dirs[n_debug_dirs++] = optarg;
			break;
		case OPT_LIST_OPTIONS:
			list_options();
			exit(0);
		case OPT_LIST_FORMATS:
			list_formats();
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf(PROGRAM_NAME " (ctrace) " PACKAGE_VERSION "\n"
					    "trace format %d.%d\n",
			       CTRACE_VERSION_MAJOR, CTRACE_VERSION_MINOR);
			exit(0);
		default:
			fprintf(stderr, "Try '" PROGRAM_NAME
					" --help' for more information.\n");
			exit(2);
		}
	}
	if (optind >= argc)
		usage_error("%s", "no trace file given");

	if (opts->filters) {
		const char *why = filter_ready(opts->filters, &bad);
		if (why)
			usage_error(why, bad);
	}
	opts->resolve.search_dirs = dirs;
	opts->resolve.n_search_dirs = n_dirs;
	opts->resolve.debug_dirs = debug_dirs;
	opts->resolve.n_debug_dirs = n_debug_dirs;
}

/* "ctrace-symbolize: trace.bin: 1234 events were lost (no space left on
 * device)", after the output, so it is seen last. */
static void report_lost(const struct trace *t)
{
	uint64_t lost = trace_lost_events(t);
	bool first = true;

	if (!lost)
		return;
	fprintf(stderr, PROGRAM_NAME ": %s: %llu event%s lost", t->path,
		(unsigned long long)lost, lost == 1 ? " was" : "s were");
	for (unsigned r = 0; r < 32; r++) {
		if (!(t->lost_reasons & (1u << r)))
			continue;
		fprintf(stderr, "%s%s", first ? " (" : ", ",
			trace_lost_reason_text(r));
		first = false;
	}
	fputs(first ? "\n" : ")\n", stderr);
}

/* Several traces (the processes of a program that forks) share one
 * timeline, in CLOCK_MONOTONIC ns, times counting from the earliest start.
 * Processes of one machine read the same TSC: then one calibration, the
 * one measured over the longest run, converts every trace's ticks, so
 * that events of different processes keep their true order (a short-lived
 * child's own calibration can be tens of microseconds off).  Traces whose
 * TSC does not agree with it (another machine, a reboot) and traces in ns
 * convert on their own. */
static void align_clocks(struct trace **traces, size_t n)
{
	const struct trace *ref = NULL;
	int64_t origin = INT64_MAX, *start;

	if (n < 2)
		return;
	start = must_calloc(n, sizeof *start);
	for (size_t i = 0; i < n; i++) {
		const struct ctrace_file_header *h = &traces[i]->hdr;
		if (!traces[i]->ticks_are_ns &&
		    (!ref || h->last_ticks - h->base_ticks >
				     ref->hdr.last_ticks - ref->hdr.base_ticks))
			ref = traces[i];
	}
	for (size_t i = 0; i < n; i++) {
		struct trace *t = traces[i];
		start[i] = (int64_t)t->hdr.base_ns;
		if (ref && !t->ticks_are_ns) {
			int64_t d = (int64_t)(t->hdr.base_ticks -
					      ref->hdr.base_ticks);
			int64_t common = (int64_t)ref->hdr.base_ns +
					 (int64_t)((double)d * ref->ns_per_tick);
			if (llabs(common - start[i]) < 1000000) {
				start[i] = common;
				t->ns_per_tick = ref->ns_per_tick;
			}
		}
		if (start[i] < origin)
			origin = start[i];
	}
	for (size_t i = 0; i < n; i++)
		traces[i]->time_offset = start[i] - origin;
	free(start);
}

/* True if the trace of `t`'s parent is among the n traces: by the same
 * test inputs_find_parent() makes, so that no file is opened twice. */
static bool has_parent(struct trace **traces, size_t n, const struct trace *t)
{
	for (size_t i = 0; i < n; i++)
		if (traces[i]->hdr.pid == t->hdr.parent_pid &&
		    traces[i]->hdr.base_ns <= t->hdr.base_ns)
			return true;
	return false;
}

/* A fork()ed child's calls nest under those its parent had open at the
 * fork: when the parent's trace was not given, the one next to the child's
 * is read for that alone (appended to the list, not shown; its problems
 * were or will be reported when it is shown itself). */
static void open_parents(struct trace ***traces, size_t *n,
			 const struct options *opts)
{
	for (size_t i = 0; i < *n; i++) {
		struct trace *t = (*traces)[i], *p;
		char *path;
		if (!(t->hdr.flags & CTRACE_FLAG_FORKED) ||
		    has_parent(*traces, *n, t))
			continue;
		path = inputs_find_parent(t->path, &t->hdr);
		if (!path)
			continue;
		p = must_calloc(1, sizeof *p);
		if (trace_open(p, path, true) < 0) {
			free(p);
			free(path);
			continue;
		}
		symtab_attach(p, &opts->resolve, true);
		p->owned_path = path;
		*traces = must_realloc(*traces, *n + 1, sizeof **traces);
		(*traces)[(*n)++] = p;
	}
}

/* Shows the n_traces traces (and the n_all - n_traces parents read for the
 * calls open at their fork) in the format, into fd; returns 1 when one was
 * damaged or a write failed (then *write_failed), else 0. */
static int show(struct trace **trace_ptrs, size_t n_traces, size_t n_all,
		struct options *opts, const struct output_format *format,
		const struct output_options *oopts, int fd, const char *name,
		bool *write_failed)
{
	static struct outbuf out;
	struct output output, *shown = &output;
	int status = 0;

	outbuf_init(&out, fd, name);
	opts->color = color_wanted(fd);
	memset(&output, 0, sizeof output);
	output.opts = opts;
	output.out = &out;
	output.n_traces = n_traces;
	format->init(&output, oopts);
	if (opts->filters)
		shown = filter_wrap(opts->filters, &output);
	shown->n_traces = n_traces;
	/* a parent read for its open calls counts too: they started first */
	align_clocks(trace_ptrs, n_all);
	replay_inherit(trace_ptrs, n_all);
	if (opts->per_thread || opts->per_process) {
		/* one thread, or process, after another */
		for (size_t i = 0; i < n_traces; i++) {
			output_begin_trace(shown, trace_ptrs[i]);
			replay_run(trace_ptrs + i, 1, shown);
			output_end_trace(shown, trace_ptrs[i]);
		}
	} else {
		for (size_t i = 0; i < n_traces; i++)
			output_begin_trace(shown, trace_ptrs[i]);
		replay_run(trace_ptrs, n_traces, shown);
		for (size_t i = 0; i < n_traces; i++)
			output_end_trace(shown, trace_ptrs[i]);
	}
	for (size_t i = 0; i < n_traces; i++) {
		report_lost(trace_ptrs[i]);
		if (trace_ptrs[i]->damaged)
			status = 1;
	}
	output_finish(shown);
	/* the replay's work and the summarizing outputs' at stack
	 * switches, for the tests that check it stays linear in the events
	 * (coroutine switches) */
	if (getenv("CTRACE_REPLAY_WORK"))
		fprintf(stderr, "ctrace-symbolize: replay work: %" PRIu64
				" calls touched\n", replay_work + agg_work);
	*write_failed = out.error != 0;
	if (out.error) {
		warn_msg(out.error, "%s: write error", out.name);
		status = 1;
	}
	return status;
}

/* Shows the traces named by `args` in the format, into fd, or into
 * output_path when it is not NULL; returns the exit status. */
static int run(struct options *opts, const struct output_format *format,
	       const struct output_options *oopts, char **args, size_t n_args,
	       const char *output_path, int fd)
{
	struct outfile outfile;
	int status = 0;
	char **paths;
	size_t n_paths, n_traces = 0, n_all;
	struct trace *traces, **trace_ptrs;

	/* Every trace (a directory gives all those in it), open together:
	 * their threads go through one replay, on one timeline. */
	paths = inputs_expand(args, n_args, &n_paths, &status);
	traces = must_calloc(n_paths + 1, sizeof *traces);
	trace_ptrs = must_calloc(n_paths + 1, sizeof *trace_ptrs);
	for (size_t i = 0; i < n_paths; i++) {
		if (trace_open(&traces[n_traces], paths[i], false) < 0) {
			status = 1;
			continue;
		}
		symtab_attach(&traces[n_traces], &opts->resolve, true);
		trace_ptrs[n_traces] = &traces[n_traces];
		n_traces++;
	}
	n_all = n_traces;
	open_parents(&trace_ptrs, &n_all, opts);
	/* Nothing is written, not even an empty document (`digraph {}'),
	 * before a trace is open: when none is, standard output stays empty
	 * and -o's file as it was. */
	if (!n_traces)
		status = 1;
	else if (output_path &&
		 (fd = outfile_open(&outfile, output_path, paths, n_paths)) < 0)
		status = 1;
	else {
		bool write_failed;
		if (show(trace_ptrs, n_traces, n_all, opts, format, oopts,
			 fd, output_path ? output_path : "standard output",
			 &write_failed))
			status = 1;
		if (output_path && outfile_close(&outfile, !write_failed) < 0)
			status = 1;
	}
	for (size_t i = 0; i < n_all; i++) {
		symtab_detach(trace_ptrs[i]);
		trace_close(trace_ptrs[i]);
	}
	for (size_t i = n_traces; i < n_all; i++)
		free(trace_ptrs[i]);
	values_reset();
	free(traces);
	free(trace_ptrs);
	inputs_free(paths, n_paths);
	return status;
}

/* --tui: what the browser's views are made with (tui.h). */
static struct {
	struct options *opts;
	const struct output_options *oopts;
	char **args;
	size_t n_args;
} tui_ctx;

static int tui_produce(const char *format, const char *function, int fd)
{
	struct output_options oo = *tui_ctx.oopts;

	if (function)
		oo.function = function;
	color_mode = COLOR_NEVER;
	tui_ctx.opts->progress = false;
	tui_ctx.opts->per_thread = !strcmp(format, "tree");
	return run(tui_ctx.opts, formats_find(format), &oo, tui_ctx.args,
		   tui_ctx.n_args, NULL, fd);
}

static int tui(int argc, char **argv, struct options *opts,
	       const struct output_options *oopts)
{
	struct tui_params p;
	int status = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, PROGRAM_NAME ": --tui needs a terminal\n");
		return 2;
	}
	tui_ctx.opts = opts;
	tui_ctx.oopts = oopts;
	tui_ctx.args = argv + optind;
	tui_ctx.n_args = (size_t)(argc - optind);
	memset(&p, 0, sizeof p);
	p.first = argv[optind];
	p.paths = inputs_expand(argv + optind, (size_t)(argc - optind),
				&p.n_paths, &status);
	if (!p.n_paths)
		return 1;
	p.args = argv + 1;
	p.n_args = (size_t)(argc - 1);
	p.no_duration = opts->no_duration;
	p.produce = tui_produce;
	status = tui_main(&p);
	inputs_free(p.paths, p.n_paths);
	return status;
}

int main(int argc, char **argv)
{
	struct options opts;
	const struct output_format *format;
	struct output_options oopts;
	const char *output_path = NULL;
	int status;

	for (size_t i = 0; argc > 1 && i < sizeof commands / sizeof *commands;
	     i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	parse_options(argc, argv, &opts, &format, &oopts, &output_path);
	if (tui_mode) {
		if (output_path)
			usage_error("%s", "--tui writes to the terminal, not "
					  "to -o's file");
		status = tui(argc, argv, &opts, &oopts);
	} else {
		status = run(&opts, format, &oopts, argv + optind,
			     (size_t)(argc - optind), output_path,
			     STDOUT_FILENO);
	}
	filter_free(opts.filters);
	free((void *)opts.resolve.search_dirs);
	free((void *)opts.resolve.debug_dirs);
	return status;
}
