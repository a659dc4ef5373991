/* prog.c -- the program the launcher tests run under `ctrace record'.
 *
 *   prog exit N       make a few calls, exit with status N
 *   prog env          print the recorder's variables as the program sees them
 *   prog args A...    print its arguments, one a line
 *   prog fork         make calls in a fork()ed child too
 *   prog exec P A...  make calls in a fork()ed child, which then execs
 *                     program P with arguments A...
 *   prog kill         die of SIGTERM
 *   prog wait         create the file `ready', then wait (10 s at most)
 *                     for the file `go' to appear
 *
 * Built with the recorder, and without it for the cases where ctrace must
 * refuse a program.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static const char *const variables[] = {
	"CTRACE",	 "CTRACE_OUTPUT", "CTRACE_FILTER",
	"CTRACE_MATCH",	 "CTRACE_DEPTH",  "CTRACE_MIN_DURATION",
	"CTRACE_ARGS",	 "CTRACE_RETVAL", "CTRACE_SIGNAL",
	"CTRACE_START",	 "CTRACE_CLOCK",
};

NOINLINE static int leaf(int n)
{
	return n * 2;
}

NOINLINE static int work(int n)
{
	return leaf(n) + leaf(n + 1);
}

static void print_environment(void)
{
	for (size_t i = 0; i < sizeof variables / sizeof *variables; i++) {
		const char *v = getenv(variables[i]);
		if (v != NULL)
			printf("%s=%s\n", variables[i], v);
		else
			printf("%s unset\n", variables[i]);
	}
}

static void wait_for_go(void)
{
	FILE *f = fopen("ready", "w");
	if (f != NULL)
		fclose(f);
	for (int i = 0; i < 1000 && access("go", F_OK) != 0; i++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "exit";

	work(1);
	if (!strcmp(what, "exit"))
		return argc > 2 ? atoi(argv[2]) : 0;
	if (!strcmp(what, "env"))
		print_environment();
	else if (!strcmp(what, "args"))
		for (int i = 2; i < argc; i++)
			printf("%s\n", argv[i]);
	else if (!strcmp(what, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			work(2);
			return 0;
		}
		waitpid(pid, NULL, 0);
	} else if (!strcmp(what, "exec") && argc > 2) {
		pid_t pid = fork();
		if (pid == 0) {
			work(2);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		int status = 0;
		waitpid(pid, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	} else if (!strcmp(what, "kill"))
		raise(SIGTERM);
	else if (!strcmp(what, "wait"))
		wait_for_go();
	else
		return 99;
	return 0;
}
