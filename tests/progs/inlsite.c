/* inlsite.c -- call sites of inlined copies.  beta and gamma are always
 * inlined: their hooks run in alpha's frame and are given alpha's call
 * site, yet each call must be named by its own line (the inlined call's
 * DW_AT_call_line), marked CALL:tag as in callsite.c.  delta is inlined
 * twice into omega, at two lines: the copy holding the entry hook's call
 * names each. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define INLINE __attribute__((always_inline)) static inline

INLINE int beta(int x)
{
	return x * 3;
}

INLINE int gamma_(int x)
{
	return beta(x) + 1;	/* CALL:gamma-beta */
}

NOINLINE static int alpha(int x)
{
	int y = x + 1;
	y = gamma_(y);		/* CALL:alpha-gamma */
	return y + 2;
}

INLINE int delta(int x)
{
	return x - 1;
}

NOINLINE static int omega(int x)
{
	int a = delta(x);	/* CALL:omega-delta1 */
	int b = delta(a + 3);	/* CALL:omega-delta2 */
	return a + b;
}

int main(int argc, char **argv)
{
	(void)argv;
	int r = alpha(argc);	/* CALL:main-alpha */
	r += omega(r);		/* CALL:main-omega */
	printf("%d\n", r);
	return r == 27 ? 0 : 1;
}
