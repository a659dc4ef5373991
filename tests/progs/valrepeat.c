/* valrepeat.c -- functions of many kinds of arguments and return values,
 * each called many times with different values from the same call sites
 * and from others, for tests/valuecache.sh: the values decoded once per
 * (function, call site) and replayed must be those decoded call by call.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

enum shade { DARK, LIGHT = 5 };
struct pair {
	int a;
	short b;
};

volatile long sink;

NOINLINE static int add(int a, int b) { sink += a; return a + b; }
NOINLINE static unsigned long mix(unsigned long x, long y, short s)
{
	sink += s;
	return x * 3 + (unsigned long)y;
}
NOINLINE static bool odd(unsigned char c, enum shade e)
{
	sink += e;
	return c & 1;
}
NOINLINE static const char *pick(const char *s, int *p, void *q)
{
	sink += *p + (q != NULL);
	return s + 1;
}
NOINLINE static double scale(double d, float f, char c)
{
	sink += c;
	return d * f;
}
NOINLINE static struct pair swap(struct pair p, long long w)
{
	struct pair r = {p.b, (short)p.a};
	sink += w;
	return r;
}
/* The edges of the digits (0, 9, 10, 99, 100, ..., the largest and the
 * smallest) and a variadic tail, shown as "...". */
NOINLINE static long long edge(unsigned long long u, long long s,
			       unsigned short h, ...)
{
	sink += h;
	return (long long)u ^ s;
}
/* A character JSON escapes: '"' and '\\'. */
NOINLINE static int quote(char c, int k)
{
	sink += c;
	return k + c;
}
NOINLINE static int depth(int n, const int *v)
{
	if (n <= 0)
		return v[0];
	return depth(n - 1, v) + n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 50;
	static const char *words[] = {"alpha", "beta", "", "gamma",
				      "q\"uote\\back"};
	unsigned long long ten = 1;
	int v[4] = {7, -3, 0, 1 << 30};
	long total = 0;

	for (int i = 0; i < n; i++) {
		total += add(i, -i * 7);
		total += add(i * 1000, 3);
		total += (long)mix((unsigned long)i << 40, -i, (short)-i);
		total += odd((unsigned char)i, i & 1 ? LIGHT : DARK);
		total += *pick(words[i % 5], &v[i % 4], i % 3 ? v : NULL);
		total += (long)scale(i / 3.0, (float)i * 0.25f, (char)('a' + i % 26));
		struct pair p = swap((struct pair){i, (short)(i * 3)}, -(long long)i << 33);
		total += p.a + p.b;
		total += depth(i % 6, &v[i % 4]);
		ten = i % 20 ? ten * 10 : 1;
		total += edge(i & 1 ? ten - 1 : ten,
			      i % 7 ? -(long long)(ten / 10) : INT64_MIN + i,
			      i % 3 ? 0 : 65535, i, words[i % 5]) & 1;
		total += quote("\"\\a'"[i % 4], i);
		total += edge(i % 2 ? UINT64_MAX : 0, i % 2 ? 0 : INT64_MAX,
			      (unsigned short)i) & 1;
	}
	printf("total %ld\n", total);
	return 0;
}
