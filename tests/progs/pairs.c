/* pairs.c -- many (function, call site) pairs in use at once: 24 leaf
 * functions called from each of 25 rounds (600 pairs, plus the rounds'
 * own 25), again and again; `pairs N K` runs N times the first K
 * rounds; `pairs N K S` makes the odd leaves spin S iterations (long
 * calls among short ones); `pairs N K S fork` runs the rounds again in a
 * fork()ed child, which its parent waits for.  Prints how many calls it
 * made, main's included (the child: its own since the fork). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static long calls = 1; /* main */
static int spin;

#define LEAF(i)                                                                \
	NOINLINE static void leaf##i(int x)                                    \
	{                                                                      \
		calls++;                                                       \
		sink += x * (i + 1);                                           \
		for (int j = 0; (i & 1) && j < spin; j++)                      \
			sink += j;                                             \
	}
#define L8(a, b, c, d, e, f, g, h)                                             \
	LEAF(a) LEAF(b) LEAF(c) LEAF(d) LEAF(e) LEAF(f) LEAF(g) LEAF(h)
L8(0, 1, 2, 3, 4, 5, 6, 7)
L8(8, 9, 10, 11, 12, 13, 14, 15)
L8(16, 17, 18, 19, 20, 21, 22, 23)

#define CALLS8(a, b, c, d, e, f, g, h)                                         \
	leaf##a(r); leaf##b(r); leaf##c(r); leaf##d(r);                        \
	leaf##e(r); leaf##f(r); leaf##g(r); leaf##h(r);
#define ROUND(k)                                                               \
	NOINLINE static void round##k(int r)                                   \
	{                                                                      \
		calls++;                                                       \
		CALLS8(0, 1, 2, 3, 4, 5, 6, 7)                                 \
		CALLS8(8, 9, 10, 11, 12, 13, 14, 15)                           \
		CALLS8(16, 17, 18, 19, 20, 21, 22, 23)                         \
	}
#define R5(a, b, c, d, e) ROUND(a) ROUND(b) ROUND(c) ROUND(d) ROUND(e)
R5(0, 1, 2, 3, 4)
R5(5, 6, 7, 8, 9)
R5(10, 11, 12, 13, 14)
R5(15, 16, 17, 18, 19)
R5(20, 21, 22, 23, 24)

#define DO1(a)                                                                 \
	if (a < rounds)                                                        \
		round##a(i);
#define DO5(a, b, c, d, e) DO1(a) DO1(b) DO1(c) DO1(d) DO1(e)

/* Not instrumented: the rounds stay at depth 1, under main. */
__attribute__((no_instrument_function)) static void
run(int n, int rounds)
{
	for (int i = 0; i < n; i++) {
		DO5(0, 1, 2, 3, 4)
		DO5(5, 6, 7, 8, 9)
		DO5(10, 11, 12, 13, 14)
		DO5(15, 16, 17, 18, 19)
		DO5(20, 21, 22, 23, 24)
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int rounds = argc > 2 ? atoi(argv[2]) : 25;
	spin = argc > 3 ? atoi(argv[3]) : 0;
	run(n, rounds);
	if (argc > 4 && strcmp(argv[4], "fork") == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			calls = 0;
			run(n, rounds);
			printf("child calls %ld\n", calls);
			return 0;
		}
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return 1;
	}
	printf("calls %ld\n", calls);
	return 0;
}
