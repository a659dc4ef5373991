/* callsite.c -- call sites.  Each call is marked with a comment CALL:tag;
 * the test finds the marked lines with grep and expects the symbolizer's
 * --srcline to name exactly those lines. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static int inner(int x)
{
	return x + 1;
}

#include "callsite.h"

NOINLINE static int outer(int x)
{
	int a = inner(x);	/* CALL:outer-inner-1 */
	int b = inner(a);	/* CALL:outer-inner-2 */
	return a + b;
}

NOINLINE static int by_pointer(int (*fn)(int), int x)
{
	return fn(x);		/* CALL:pointer */
}

int main(void)
{
	int r = 0;

	r += outer(1);			/* CALL:main-outer */
	r += inner(r);			/* CALL:main-inner */
	r += from_header(2);		/* CALL:main-header */
	r += by_pointer(inner, 3);	/* CALL:main-pointer */
	printf("%d\n", r);
	return r == 19 ? 0 : 1;
}
