/* libcall-tail.c -- a library call whose function ends in a jump to an
 * instrumented function of the program (libtail.c): that function's
 * hooks see the recorder's return trampoline as their call site.  It
 * nests in the library call, as uftrace shows it, and the library call
 * returns when it does. */
#include <stdio.h>

int tail_apply(int x); /* libtail.so */

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3;
}

int tail_target(int x)
{
	return leaf(x) + 1;
}

int main(void)
{
	printf("%d\n", tail_apply(20));
	printf("%d\n", tail_apply(30));
	return 0;
}
