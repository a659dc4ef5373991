/* symbolizer.h -- ctrace-symbolize's own part: the command line, its
 * inputs and its commands (main.c, inputs.c, cmd_*.c).  main.c parses the
 * options, opens the traces, aligns the clocks of several traces on one
 * timeline, and runs the stages: trace/ reads, replay/ makes calls,
 * output/ shows them; or runs the command its first argument names.
 */
#ifndef CTRACE_SYMBOLIZER_SYMBOLIZER_H
#define CTRACE_SYMBOLIZER_SYMBOLIZER_H

#include "output/output.h"

/* The trace files of the command line, a directory standing for every
 * trace in it (inputs.c).  Problems are reported and set *status to 1. */
char **inputs_expand(char **args, size_t n_args, size_t *n, int *status);
void inputs_free(char **list, size_t n);

/* The commands given as the first argument, instead of traces (main.c's
 * table): each takes the arguments from its name on (argv[0]) and returns
 * the exit status.
 *
 * cmd_plan: --make-plan [-o FILE] PROGRAM... (cmd_plan.c) */
int cmd_plan(int argc, char **argv);

struct ctrace_file_header;
/* The trace of the process that fork()ed the one whose header is `child`,
 * looked for next to it (same directory and output name): a malloc'd path,
 * or NULL. */
char *inputs_find_parent(const char *child_path,
			 const struct ctrace_file_header *child);

#endif /* CTRACE_SYMBOLIZER_SYMBOLIZER_H */
