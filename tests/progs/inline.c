/* inline.c -- a library function inlined into an instrumented one.  With
 * optimization, glibc's <stdlib.h> defines atoi() as an inline wrapper
 * around strtol(); clang instruments it where it is inlined (gcc does
 * not), so the hooks see a call of atoi -- named by its PLT address, with
 * the stack pointer and call site of main itself.  That call must not be
 * mistaken for main returning. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static int work(int n)
{
	return n * 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;

	printf("%d\n", work(n));
	return 0;
}
