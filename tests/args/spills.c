/* spills.c -- parameters of the types clang -O0 reloads from their spill
 * slots after the entry hook with more than a move: a bool (and $1), a
 * long double (fldt, fstpt), and those whose moves follow them. */
#include <stdbool.h>

#include "expect.h"

#define TESTED __attribute__((noinline))

enum color { RED, GREEN, BLUE };

TESTED int kinds(bool b, unsigned char c, enum color e, long double d,
		 short s, signed char sc)
{
	return b + c + (int)e + (int)d + s + sc;
}

TESTED int flag_last(int a, bool b)
{
	return a + b;
}

int main(void)
{
	int r = kinds(true, 200, BLUE, 2.5L, -3, -4);
	expect("kinds", "b=true\tc=200\te=BLUE\td=2.5\ts=-3\tsc=-4\t=%d", r);
	r = flag_last(41, false);
	expect("flag_last", "a=41\tb=false\t=%d", r);
	return 0;
}
