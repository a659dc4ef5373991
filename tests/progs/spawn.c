/* spawn.c -- runs another instrumented program (argv[1] with argv[2...])
 * while this one is tracing to the same CTRACE_OUTPUT, so the other
 * program must pick another file name.  Prints the child's pid. */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

#define NOINLINE __attribute__((noinline))

extern char **environ;

NOINLINE static int before_spawn(void)
{
	return 1;
}

NOINLINE static int spawn_and_wait(char **argv)
{
	pid_t pid;
	int status;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ))
		return -1;
	printf("%ld\n", (long)pid);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return -1;
	return 0;
}

NOINLINE static int after_spawn(void)
{
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	before_spawn();
	if (spawn_and_wait(argv + 1))
		return 3;
	after_spawn();
	return 0;
}
