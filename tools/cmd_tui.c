/* cmd_tui.c -- ctrace tui [SYMBOLIZER-OPTION]... [TRACE]...: the calls
 * browsed on the terminal (ctrace-symbolize --tui): the call tree, folded
 * and searched, the report sorted by any column, a function's callers and
 * callees.  The options and filters are ctrace-symbolize's, as for replay;
 * trace.bin when no trace is named.
 *
 * Exit status: ctrace-symbolize's (0, or 1 when a trace was damaged or
 * its index cannot be made; 2 when it refuses the command line or the
 * standard input or output is not a terminal); 127 when it cannot be run.
 */
#include "commands.h"
#include "symbolize.h"

int cmd_tui(int argc, char **argv)
{
	(void)argc;
	return symbolize_mode("--tui", argv + 1);
}
