/* stackdelta.c -- ENTRYs whose stack pointers lie every even number of
 * words apart from about 10 to 130, up and down: the recorder writes a
 * stack delta of -64 to 63 words in one byte, a larger one in more.  The
 * reader adds them up into each ENTRY's stack pointer, which a stack
 * address passed as an argument is shown relative to: a delta written or
 * read wrongly shows `p` and `q` wrong from there on. */
#include <stdlib.h>

#include "expect.h"

#define TESTED __attribute__((noinline))

TESTED long leaf(long a, volatile long *p, long c, long d, long e, long f,
		 long g, volatile long *q)
{
	return a + *p + c + d + e + f + g + *q;
}

/* The entry of leaf k words further down than this one's, about. */
TESTED long mid(int k)
{
	volatile long *pad =
		__builtin_alloca(((size_t)k + 1) * sizeof(long));
	pad[0] = k;
	pad[k] = -k;
	long r = leaf(k, pad, 3 * k, 4, 5, 6, 1000 + k, pad + k);
	expect("leaf", "a=%d\tp=%p\tc=%d\td=4\te=5\tf=6\tg=%d\tq=%p\t=%ld", k,
	       (void *)pad, 3 * k, 1000 + k, (void *)(pad + k), r);
	return r;
}

int main(void)
{
	long sum = 0;
	for (int k = 0; k < 100; k++)
		sum += mid(k);
	return sum == 42; /* never: keeps the calls */
}
