/* selfrec.c -- recursion that gcc inlines into itself (gcc 12 at -O2 and
 * -O3): the inlined copies run in their host's frame and their entry hooks
 * report the host's function, call site and stack pointer.  Only the
 * address of each hook call differs.
 *
 *   selfrec sum N     sum(n) for n = 0..N, self-recursive
 *   selfrec mutual N  even(n) and odd(n), which call each other
 *   selfrec jump N    dive(N) leaves its deepest call by longjmp, three
 *                     times, each time called again from the same call
 *                     site: a new call, at depth 1 again
 *   selfrec loop N    N rounds of dive(20) left by longjmp, each followed
 *                     by a call of twice(round), whose value it prints
 *   selfrec deep N    sum(N) alone: N + 1 calls nested in each other
 *
 * jump prints the calls of dive and the sum of their depths (main's
 * callees are at depth 1), which the counting hooks cannot follow across
 * the longjmp. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static int sum(int n)
{
	return n <= 0 ? 0 : n + sum(n - 1);
}

static int odd(int n);

static int even(int n)
{
	return n == 0 ? 1 : odd(n - 1);
}

static int odd(int n)
{
	return n == 0 ? 0 : even(n - 1);
}

static jmp_buf env;

__attribute__((noinline)) static void bottom(void)
{
	longjmp(env, 1);
}

/* Kept free of side effects of its own, or gcc does not inline it into
 * itself: dive(n) calls dive(n - 1) down to dive(0), which leaves. */
static int dive(int n)
{
	if (n == 0)
		bottom();
	return n + dive(n - 1);
}

#define ROUNDS 3

__attribute__((noinline)) static void jump(int n)
{
	for (volatile int round = 0; round < ROUNDS; round++)
		if (setjmp(env) == 0)
			printf("%d\n", dive(n));
}

__attribute__((noinline)) static int twice(int n)
{
	return 2 * n + 1;
}

/* Thousands of calls left by longjmp, then calls that return. */
__attribute__((noinline)) static void loop(int rounds)
{
	for (volatile int round = 0; round < rounds; round++) {
		if (setjmp(env) == 0)
			printf("%d\n", dive(20));
		printf("twice %d\n", twice(round));
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sum";
	int n = 0;

	/* not atoi: clang -O2 instruments glibc's inline atoi, which has no
	 * debug information for argument capture to read */
	for (const char *d = argc > 2 ? argv[2] : "6"; *d >= '0' && *d <= '9';
	     d++)
		n = 10 * n + (*d - '0');

	if (strcmp(mode, "sum") == 0) {
		for (int i = 0; i <= n; i++)
			printf("sum(%d) = %d\n", i, sum(i));
	} else if (strcmp(mode, "mutual") == 0) {
		for (int i = 0; i <= n; i++)
			printf("even(%d) = %d\n", i, even(i));
	} else if (strcmp(mode, "jump") == 0) {
		/* main is at depth 0, jump at 1, dive(n) at 2 */
		jump(n);
		printf("dive calls %d depth sum %d\n", ROUNDS * (n + 1),
		       ROUNDS * (n + 1) * (n + 4) / 2);
	} else if (strcmp(mode, "loop") == 0) {
		loop(n);
	} else if (strcmp(mode, "deep") == 0) {
		printf("sum(%d) = %d\n", n, sum(n));
	} else {
		return 2;
	}
	return 0;
}
