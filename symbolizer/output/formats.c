/* formats.c -- the table of output formats: the one list that -f, --help,
 * --list-formats (which the launcher reads) and the fuzz target read.
 * A new format is its out_<name>.c and one line here.
 */
#include <string.h>

#include "output.h"

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
	{NULL, NULL, NULL},
};

const struct output_format *formats_find(const char *name)
{
	for (const struct output_format *f = formats_all; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}
