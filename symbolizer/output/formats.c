/* formats.c -- the table of output formats: the one list that -f, --help,
 * --list-formats (which the launcher reads) and the fuzz target read,
 * and the values of the options that only formats read (--sort,
 * --weight).  A new format is its out_<name>.c and one line here.
 */
#include <string.h>

#include "output/output.h"

/* The first is the default.  Help lines are one line each: --help wraps
 * them, --list-formats prints them as they are. */
const struct output_format formats_all[] = {
	{"tree", "the calls as an indented tree, with their durations, "
		 "arguments and return values", out_tree_init},
	{"json", "one JSON object per call", out_json_init},
	{"report", "a table of the calls and time of each function",
	 out_report_init},
	{"dot", "the call graph, for Graphviz", out_dot_init},
	{"chrome", "the Trace Event Format of Perfetto and chrome://tracing",
	 out_chrome_init},
	{"folded", "folded stacks, for flamegraph.pl and speedscope",
	 out_folded_init},
	{"flamegraph", "a flame graph, as one SVG file", out_flamegraph_init},
	{"perfetto", "Perfetto's own protobuf trace format: a few bytes an "
		     "event, for traces too large for chrome", out_perfetto_init},
	{"stats", "the report's calls, total and self time in ns, "
		  "tab-separated, for programs", out_stats_init},
	{"graph", "the call paths to one function (--function) and its "
		  "callees, as text", out_graph_init},
	{"graph-stats", "graph's calls and total time in ns, tab-separated, "
			"for programs", out_graph_stats_init},
	{"info", "each process: program, command line, exit status, times, "
		 "memory, threads, events, trace size, settings", out_info_init},
	{"info-json", "info as one JSON object", out_info_json_init},
	{NULL, NULL, NULL},
};

const struct output_format *formats_find(const char *name)
{
	for (const struct output_format *f = formats_all; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

int formats_sort_key(const char *name, enum report_sort *key)
{
	static const char *const names[] = {
		[SORT_TOTAL] = "total", [SORT_CALLS] = "calls",
		[SORT_SELF] = "self",   [SORT_AVG] = "avg",
		[SORT_MAX] = "max",     [SORT_NAME] = "name",
	};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		if (!strcmp(name, names[i])) {
			*key = (enum report_sort)i;
			return 0;
		}
	}
	return -1;
}

int formats_weight(const char *name, bool *by_calls)
{
	if (!strcmp(name, "time"))
		*by_calls = false;
	else if (!strcmp(name, "calls"))
		*by_calls = true;
	else
		return -1;
	return 0;
}
