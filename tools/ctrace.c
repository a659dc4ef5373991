/* ctrace.c -- the launcher's command line: `ctrace COMMAND ARG...' runs
 * the command's entry function from the table of commands.def; --help
 * lists the table.
 *
 * Exit status: the command's (record: the program's, 128+N when signal N
 * killed it; replay, report, graph, dump: ctrace-symbolize's); 2 when
 * ctrace refuses the command line, 127 when ctrace-symbolize cannot be
 * run or does not list its options and formats (symbolize.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "launcher.h"

static const struct command commands[] = {
#define COMMAND(name, arguments, help) {#name, arguments, help, cmd_##name},
#include "commands.def"
#undef COMMAND
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static void usage(void)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		printf("%s ctrace %s %s\n", i ? "      " : "Usage:",
		       commands[i].name, commands[i].arguments);
	printf("       ctrace --help | --version\n"
	       "Record the calls of a program built with ctrace, then show "
	       "them.\n\n"
	       "Commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		printf("  %-9s %s\n", commands[i].name, commands[i].help);
	printf("\n"
	       "The commands that read a trace read trace.bin unless given "
	       "TRACE, and\n"
	       "pass their options to ctrace-symbolize (see ctrace-symbolize "
	       "--help).\n"
	       "'ctrace COMMAND --help' shows the options of COMMAND.\n"
	       "\n"
	       "  -h, --help      show this help and exit\n"
	       "  -V, --version   show the version and exit\n"
	       "\n"
	       "Exit status: record exits with PROGRAM's status (128+N if "
	       "signal N\n"
	       "killed it), the other commands with ctrace-symbolize's; 2 "
	       "when ctrace\n"
	       "refuses the command line, 127 when it cannot run "
	       "ctrace-symbolize.\n");
}

/* "record, replay, ... or dump" */
static void print_names(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_COMMANDS && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0		    ? "" :
					i + 1 == N_COMMANDS ? " or " :
							      ", ",
					commands[i].name);
}

int main(int argc, char **argv)
{
	char names[512];

	print_names(names, sizeof names);
	if (argc < 2)
		usage_error("no command given (%s)", names);
	const char *name = argv[1];

	if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
		usage();
		return 0;
	}
	if (!strcmp(name, "-V") || !strcmp(name, "--version"))
		print_version();
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (!strcmp(name, commands[i].name)) {
			launcher_set_command(name);
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	if (name[0] == '-')
		usage_error("unknown option '%s': the command comes first "
			    "(%s)",
			    name, names);
	usage_error("unknown command '%s' (%s)", name, names);
}
