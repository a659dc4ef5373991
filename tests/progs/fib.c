/* fib.c -- recursion.  fib(n) makes 2 * F(n + 1) - 1 calls of fib:
 * 15 for n = 5, 21891 for n = 20. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static int fib(int n)
{
	int a, b;

	if (n < 2)
		return n;
	/* Two statements, so that fib(n - 1) is called first whatever the
	 * compiler's order of evaluation. */
	a = fib(n - 1);
	b = fib(n - 2);
	return a + b;
}

/* strtol rather than atoi: glibc's atoi is an inline function, which
 * clang -O2 instruments (inline.c is about that). */
int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5;

	printf("fib(%d) = %d\n", n, fib(n));
	return 0;
}
