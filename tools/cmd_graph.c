/* cmd_graph.c -- ctrace graph [OPTION]... [FUNC] [TRACE]...: with FUNC,
 * the call paths that reach FUNC and its callees (ctrace-symbolize
 * --format=graph --function=FUNC); without, the call graph in dot
 * (--format=dot).  The first operand is a trace when it ends in ".bin"
 * (no C or C++ function's name does), names a directory, or a file that
 * is a trace or cannot be read (ctrace-symbolize says why); else it is
 * FUNC: a program is often named as its main function's file, so that a
 * file of that name is no proof.
 *
 * With --diff OTHER (FUNC needed), FUNC's graph of OTHER and of the
 * traces side by side (graphdiff.c).
 *
 * Exit status: ctrace-symbolize's (0, or 1 when a trace was damaged; 2
 * when it refuses the command line); 127 when it cannot be run or does
 * not list its options.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctrace_format.h"

#include "commands.h"
#include "graphdiff.h"
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

/* Whether ctrace-symbolize is to read the operand s as a trace. */
static int is_trace(const char *s)
{
	size_t n = strlen(s);
	char magic[sizeof CTRACE_FILE_MAGIC - 1];
	struct stat st;
	ssize_t got;
	int fd;

	if (n >= 4 && !strcmp(s + n - 4, ".bin"))
		return 1;
	if (stat(s, &st) != 0)
		return 0;
	if (!S_ISREG(st.st_mode))
		return 1; /* a directory of traces, or what it will refuse */
	fd = open(s, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	got = read(fd, magic, sizeof magic);
	close(fd);
	return got == (ssize_t)sizeof magic &&
	       !memcmp(magic, CTRACE_FILE_MAGIC, sizeof magic);
}

int cmd_graph(int argc, char **argv)
{
	const char *other = NULL;
	char **args, *function;
	int n = 0, i, kept = 1;

	/* --diff OTHER, before a "--", taken out of argv */
	for (int k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--")) {
			while (k < argc)
				argv[kept++] = argv[k++];
			break;
		}
		if (!strcmp(argv[k], "--diff")) {
			if (k + 1 == argc)
				usage_error("--diff needs a trace to compare "
					    "with");
			other = argv[++k];
		} else if (!strncmp(argv[k], "--diff=", 7)) {
			other = argv[k] + 7;
		} else {
			argv[kept++] = argv[k];
		}
	}
	argv[kept] = NULL;
	argc = kept;
	i = first_operand(argv + 1);
	if (i < 0 || is_trace(argv[1 + i])) {
		if (other)
			usage_error("graph --diff needs a function: "
				    "graph FUNC --diff OTHER [TRACE]...");
		return symbolize_view("dot", argv + 1);
	}
	/* FUNC becomes --function=FUNC, before the other arguments */
	args = must_alloc((size_t)(argc + 1) * sizeof *args);
	function = must_alloc(strlen(argv[1 + i]) + sizeof "--function=");
	sprintf(function, "--function=%s", argv[1 + i]);
	args[n++] = function;
	for (int k = 1; k < argc; k++)
		if (k != 1 + i)
			args[n++] = argv[k];
	args[n] = NULL;
	if (other)
		return graphdiff_run(other, args);
	return symbolize_view("graph", args);
}
