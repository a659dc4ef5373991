/* Many functions and call sites: what an event costs when the pairs
 * (function, call site) in use outnumber the recorder's pair slots, as in
 * real programs, and whether that depends on where ASLR put the code.
 *
 *   ./sites [ROUNDS] [WIDTH]   (defaults 20000 and 64)
 *
 * WIDTH of 64 middle functions, called in turn through one table, each
 * calls 4 of 256 leaves from 8 call sites of its own: 8 * WIDTH + WIDTH
 * pairs in use.  Prints "calls=N checksum=C"; calls counts every
 * instrumented call (main's included), so events = 2 * calls.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINL __attribute__((noinline))

static unsigned long long calls;

#define X4(m, b) m(b##0) m(b##1) m(b##2) m(b##3)
#define X16(m, b) X4(m, b##0) X4(m, b##1) X4(m, b##2) X4(m, b##3)
#define X64(m, b) X16(m, b##0) X16(m, b##1) X16(m, b##2) X16(m, b##3)
#define X256(m) X64(m, 0) X64(m, 1) X64(m, 2) X64(m, 3)

#define LEAF(i)                                                                \
	NOINL static unsigned leaf_##i(unsigned x)                             \
	{                                                                      \
		calls++;                                                       \
		return x * 2654435761u + 0##i;                                 \
	}
X256(LEAF)

#define L(a) leaf_##a
#define MID(i)                                                                 \
	NOINL static unsigned mid_##i(unsigned x)                              \
	{                                                                      \
		calls++;                                                       \
		x = L(0##i)(x) + L(1##i)(x ^ 1) + L(2##i)(x ^ 2) +             \
		    L(3##i)(x ^ 3);                                            \
		x = L(0##i)(x) ^ L(1##i)(x + 1) ^ L(2##i)(x + 2) ^             \
		    L(3##i)(x + 3);                                            \
		return x;                                                      \
	}
X64(MID, )

#define REF(i) mid_##i,
static unsigned (*const mids[])(unsigned) = {X64(REF, )};

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	int width = argc > 2 ? atoi(argv[2]) : 64;
	unsigned x = 1;
	if (width < 1 || width > 64)
		width = 64;
	calls++;
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < width; i++)
			x += mids[i](x);
	printf("calls=%llu checksum=%u\n", calls, x);
	return 0;
}
