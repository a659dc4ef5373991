/* cmd_info.c -- ctrace info: what each process of a session was and how it
 * ended (program, build id, command line, pids, times, memory, exit
 * status, threads, events, trace size, recorder settings), in the manner
 * of uftrace info: ctrace-symbolize --format=info, or --format=info-json
 * with --json.  With no trace named, the last run's (session.c).
 *
 * Exit status: ctrace-symbolize's; 127 when it cannot be run.
 */
#include <string.h>

#include "commands.h"
#include "launcher.h"
#include "symbolize.h"

int cmd_info(int argc, char **argv)
{
	char **rest = must_alloc((size_t)(argc + 1) * sizeof *rest);
	int n = 0, json = 0, end = 0;

	for (int i = 1; i < argc; i++) {
		if (!end && !strcmp(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if (!end && symbolize_word(argv, i) == SYMBOLIZE_END)
			end = 1;
		rest[n++] = argv[i];
	}
	rest[n] = NULL;
	return symbolize_view(json ? "info-json" : "info", rest);
}
