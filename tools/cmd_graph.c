/* cmd_graph.c -- ctrace graph [OPTION]... [FUNC] [TRACE]...: with FUNC,
 * the call paths that reach FUNC and its callees (ctrace-symbolize
 * --format=graph --function=FUNC); without, the call graph in dot
 * (--format=dot).  FUNC is the first operand when it names no file or
 * directory and does not end in ".bin": a trace is a file, most often
 * named *.bin, and no C or C++ function's name ends so.
 *
 * Exit status: ctrace-symbolize's (0, or 1 when a trace was damaged; 2
 * when it refuses the command line); 127 when it cannot be run or does
 * not list its options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "launcher.h"
#include "symbolize.h"

/* The index of the first operand in argv, or -1. */
static int first_operand(char **argv)
{
	for (int i = 0; argv[i] != NULL; i++) {
		switch (symbolize_word(argv, i)) {
		case SYMBOLIZE_OPERAND:
			return i;
		case SYMBOLIZE_END:
			return argv[i + 1] != NULL ? i + 1 : -1;
		case SYMBOLIZE_OPTION_VALUE:
			i++;
			break;
		case SYMBOLIZE_OPTION:
			break;
		}
	}
	return -1;
}

static int ends_bin(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && !strcmp(s + n - 4, ".bin");
}

int cmd_graph(int argc, char **argv)
{
	struct stat st;
	int i = first_operand(argv + 1);
	char **args, *function;
	int n = 0;

	if (i < 0 || stat(argv[1 + i], &st) == 0 || ends_bin(argv[1 + i]))
		return symbolize_view("dot", argv + 1);
	/* FUNC becomes --function=FUNC, before the other arguments */
	args = must_alloc((size_t)(argc + 1) * sizeof *args);
	function = must_alloc(strlen(argv[1 + i]) + sizeof "--function=");
	sprintf(function, "--function=%s", argv[1 + i]);
	args[n++] = function;
	for (int k = 1; k < argc; k++)
		if (k != 1 + i)
			args[n++] = argv[k];
	args[n] = NULL;
	return symbolize_view("graph", args);
}
