/* fork.c -- the parent and a fork()ed child each write their own trace.
 * Prints the child's pid.  The child makes its calls and returns from the
 * function that called fork() (entered before the child's trace began)
 * before the parent's second call, so a shared file would show both. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static int leaf(int x)
{
	return x + 1;
}

NOINLINE static int before_fork(void)
{
	return leaf(1);
}

/* fflush: a library call whose slot the parent bound (main's), named
 * in the child's trace too. */
NOINLINE static int child_work(void)
{
	fflush(stdout);
	return leaf(2) + leaf(3);
}

NOINLINE static pid_t start_child(void)
{
	pid_t pid = fork();

	if (pid == 0)
		child_work();
	return pid;
}

NOINLINE static int parent_work(void)
{
	return leaf(4);
}

int main(void)
{
	int status;
	pid_t pid;

	before_fork();
	fflush(stdout);
	pid = start_child();
	if (pid < 0)
		return 2;
	if (pid == 0)
		_exit(0);
	printf("%ld\n", (long)pid);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return 3;
	parent_work();
	return 0;
}
