/* commands.h -- the launcher's commands: the entry function of each line
 * of commands.def, and the table ctrace.c makes of them. */
#ifndef CTRACE_TOOLS_COMMANDS_H
#define CTRACE_TOOLS_COMMANDS_H

struct command {
	const char *name;
	const char *arguments; /* after "ctrace NAME" in the usage */
	const char *help;      /* one line for ctrace --help */
	/* argv[0] is NAME, argv[argc] NULL; returns the exit status. */
	int (*run)(int argc, char **argv);
};

#define COMMAND(name, arguments, help) int cmd_##name(int argc, char **argv);
#include "commands.def"
#undef COMMAND

#endif /* CTRACE_TOOLS_COMMANDS_H */
