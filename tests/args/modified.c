/* modified.c -- functions that change their own parameters, for
 * tests/args/matrix.sh.
 *
 * Optimized code keeps a parameter in one register and counts it down,
 * shifts it or advances it there; the location list then describes the
 * register at the call to the entry hook and the changed value from the
 * instruction after it.  The value shown must be the one passed: the
 * location in force at the call instruction.  main prints the
 * expectations like matrix.c.
 */
#include <stdio.h>

#include "expect.h"

#define TESTED __attribute__((noinline, used))

TESTED int sum_down(int a, int n)
{
	int s = 0;
	while (n--)
		s += a;
	return s;
}

TESTED unsigned shift_up(unsigned x, int k)
{
	while (k-- > 0)
		x <<= 1;
	return x;
}

TESTED int halve(int x, int times)
{
	while (times-- > 0)
		x /= 2;
	return x;
}

TESTED long walk(const int *p, int n)
{
	long s = 0;
	for (; n > 0; n--, p++)
		s += *p;
	return s;
}

TESTED unsigned long long mix(unsigned long long h, const char *s, int n)
{
	for (; n > 0 && *s; n--, s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* A parameter the code overwrites before reading it: clang -O1 and above
 * say it is 5 from the function's first instruction on, whatever was
 * passed: shown as passed or ?, never 5. */
static volatile long seen;

TESTED long reset(long p)
{
	p = 5;
	seen = p;
	return p;
}

int main(void)
{
	static const int data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	for (int i = 0; i < 3; i++) {
		int r = sum_down(27, 6 + i);
		expect("sum_down", "a=27\tn=%d\t=%d", 6 + i, r);
	}
	for (int i = 0; i < 3; i++) {
		unsigned r = shift_up(3u + (unsigned)i, 4 + i);
		expect("shift_up", "x=%u\tk=%d\t=%u", 3u + (unsigned)i, 4 + i,
		       r);
	}
	for (int i = 0; i < 3; i++) {
		int r = halve(1000 * (i + 1), 3 + i);
		expect("halve", "x=%d\ttimes=%d\t=%d", 1000 * (i + 1), 3 + i,
		       r);
	}
	for (int i = 0; i < 3; i++) {
		long r = walk(data + i, 5 - i);
		expect("walk", "p=%p\tn=%d\t=%ld", (const void *)(data + i),
		       5 - i, r);
	}
	const char *word = "values";
	unsigned long long h = mix(14695981039346656037ULL, word, 4);
	expect("mix", "h=14695981039346656037\ts=\"values\"\t#s=%p\tn=4\t=%llu",
	       (const void *)word, h);
	for (int i = 0; i < 3; i++) {
		long r = reset(40 + i);
		expect("reset", "p=%d\t=%ld", 40 + i, r);
	}
	return 0;
}
