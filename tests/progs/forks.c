/* forks.c -- children made where the recorder may be busy, or where no
 * fork handler runs.
 *
 *   forks handler N   after a million calls of spin(), a 20 us timer's
 *                     handler calls fork() until N children exist, while
 *                     main keeps calling spin();
 *                     each child calls child_work() once and exits
 *   forks bare N      N children made by _Fork(), which runs no fork
 *                     handler; each calls child_work() once and exits;
 *                     then the parent calls after() 1000 times
 *
 * Prints "N EXITED_0": how many children ended with status 0 (a child
 * killed by a signal does not count).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static pid_t children[64];
static volatile int n_children, wanted;

NOINLINE static int child_work(int x)
{
	return x * 3;
}

NOINLINE static void spin(int x)
{
	sink += x;
}

NOINLINE static void after(int x)
{
	sink += x;
}

NOINLINE static void on_timer(int sig)
{
	(void)sig;
	if (n_children >= wanted)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		sink = child_work(n_children);
		_exit(0);
	}
	if (pid > 0)
		children[n_children++] = pid;
}

NOINLINE static pid_t make_bare(int i)
{
	pid_t pid = _Fork();
	if (pid == 0) {
		sink = child_work(i);
		_exit(0);
	}
	return pid;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	wanted = atoi(argv[2]);
	if (wanted < 1 || wanted > 64)
		return 2;
	if (!strcmp(argv[1], "handler")) {
		/* Far into the trace first: the chunk being written when a
		 * child is made lies well past the start of any new file. */
		for (int i = 0; i < 1000000; i++)
			spin(0);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_timer;
		sigaction(SIGALRM, &sa, NULL);
		struct itimerval it = {{0, 20}, {0, 20}};
		setitimer(ITIMER_REAL, &it, NULL);
		while (n_children < wanted)
			spin(1);
		struct itimerval off = {{0, 0}, {0, 0}};
		setitimer(ITIMER_REAL, &off, NULL);
	} else if (!strcmp(argv[1], "bare")) {
		while (n_children < wanted) {
			pid_t pid = make_bare(n_children);
			if (pid < 0)
				return 1;
			children[n_children++] = pid;
		}
	} else {
		return 2;
	}
	int ok = 0;
	for (int i = 0; i < n_children; i++) {
		int st;
		if (waitpid(children[i], &st, 0) == children[i] &&
		    WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
	}
	for (int i = 0; i < 1000; i++)
		after(i);
	printf("%d %d\n", n_children, ok);
	return 0;
}
