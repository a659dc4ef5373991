/* inlined.c -- arguments of inlined copies, for tests/args/inlined.sh.
 *
 * Each helper is static and small, so that the compiler inlines it into
 * its hosts (the entry hook then runs inside the host's code, in the
 * scope of a DW_TAG_inlined_subroutine); the hosts are not inlined.  The
 * program prints, like matrix.c, the arguments each call got.
 */
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

#define HOST __attribute__((noinline))

static inline int scale(int v, int k) { return v * k + 1; }
static inline long mix(long a, unsigned char b, short c)
{
	return a * 31 + b - c;
}
static inline double halve(double d, int n) { return d / (1 << n) + n; }

HOST int host_scale(int a, int b)
{
	expect("scale", "v=%d\tk=%d", a, 3);
	int r = scale(a, 3);
	expect("scale", "v=%d\tk=%d", b, a);
	r += scale(b, a);
	return r;
}

HOST long host_mix(long a, int i)
{
	expect("mix", "a=%ld\tb=%d\tc=%d", a, 'a' + i, i - 2);
	return mix(a, (unsigned char)('a' + i), (short)(i - 2));
}

HOST double host_halve(double d, int n)
{
	expect("halve", "d=%g\tn=%d", d, n);
	return halve(d, n) + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	long s = 0;
	double h = 0;
	for (int i = 0; i < 4; i++) {
		s += host_scale(i + argc, 7 * i);
		s += host_mix(1000L * i + argc, i);
		h += host_halve(3.0 * (i + argc), i + 1);
	}
	fprintf(stderr, "%ld %g\n", s, h);
	return 0;
}
