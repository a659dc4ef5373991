/* cmd_replay.c -- ctrace replay and report: the trace handed to
 * ctrace-symbolize in the format the command is named after, with the
 * command's arguments (its options and traces), and trace.bin when they
 * name no trace (symbolize.c).
 *
 * report --diff OTHER compares two sessions (reportdiff.c).
 *
 * Exit status: ctrace-symbolize's (0, or 1 when a trace was damaged; 2
 * when it refuses the command line); 127 when it cannot be run or does
 * not list its options.
 */
#include <string.h>

#include "commands.h"
#include "reportdiff.h"
#include "symbolize.h"

int cmd_replay(int argc, char **argv)
{
	(void)argc;
	return symbolize_view("tree", argv + 1);
}

int cmd_report(int argc, char **argv)
{
	/* --diff OTHER: two sessions side by side (reportdiff.c) */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--diff") || !strncmp(argv[i], "--diff=", 7))
			return reportdiff_run(argv + 1);
	return symbolize_view("report", argv + 1);
}
