/* matrix.c -- functions of every kind of argument and return value, for
 * tests/args/matrix.sh.
 *
 * main calls each function with known values and prints what the trace
 * must show, one line per argument and per return value, in call order:
 *   A <function> <name>=<text>
 *   R <function> <text>
 * check.py compares these with what ctrace-symbolize recovered.  The text
 * is formatted the way the symbolizer formats values.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

#define TESTED __attribute__((noinline, used))

enum color { RED, GREEN, BLUE = 7 };
struct pt { int x, y; };
struct mix { int i; double d; };
struct big { long a[5]; };
typedef unsigned long ulong_t;

static volatile int sink;

TESTED int add3(int a, int b, int c) { return a + b + c; }

TESTED long long widths(signed char c, short s, unsigned u, long long ll,
			unsigned long long ull, unsigned short us)
{
	return c + s + (long long)u + ll + (long long)ull + us;
}

TESTED int chars(char c, unsigned char uc) { return c + uc; }
TESTED bool flip(bool b) { return !b; }
TESTED enum color next_color(enum color c) { return c == RED ? BLUE : RED; }
TESTED void *bump(void *p) { return (char *)p + 16; }
TESTED size_t slen(const char *s) { return strlen(s) * 2; }
TESTED double scale(double d, float f) { return d * f; }
TESTED float halve(float f) { return f / 2; }
TESTED long double ldmul(long double x) { return x * 3; }
TESTED struct pt mkpt(int x, int y) { struct pt p = {x, y}; return p; }
TESTED int ptsum(struct pt p) { return p.x + p.y; }
TESTED struct mix mkmix(int i, double d) { struct mix m = {i, d}; return m; }
TESTED long bigsum(struct big b) { return b.a[0] + b.a[4]; }
TESTED struct big mkbig(long v)
{
	struct big b = {{v, v + 1, v + 2, v + 3, v + 4}};
	return b;
}
TESTED ulong_t tdef(ulong_t v) { return v + 1; }
TESTED long many(int a1, int a2, int a3, int a4, int a5, int a6, int a7,
		 int a8)
{
	return a1 + a2 * 2 + a3 * 3 + a4 * 4 + a5 * 5 + a6 * 6 + a7 * 7 +
	       a8 * 8;
}
TESTED int vsum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
TESTED int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
/* Two pointers into one array, kept in callee-saved registers: the
 * second is recorded relative to the first. */
static int span_data[64];
TESTED long span(const int *lo, const int *hi)
{
	long n = 0;
	for (const int *p = lo; p < hi; p++)
		n += *p;
	return n;
}
#ifdef __x86_64__
TESTED __int128 wide(__int128 a) { return a * 3; }

static void put_i128(__int128 v)
{
	char d[48];
	int n = sizeof d;
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	d[--n] = '\0';
	do {
		d[--n] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		d[--n] = '-';
	printf("%s", d + n);
}
#endif

int main(void)
{
	expect("add3", "a=1\tb=-2\tc=30\t=%d", add3(1, -2, 30));

	long long w = widths(-5, -300, 70000, -5000000000LL,
			     18000000000000000000ULL, 65000);
	expect("widths", "c=-5\ts=-300\tu=70000\tll=-5000000000\t"
	       "ull=18000000000000000000\tus=65000\t=%lld", w);
	expect("chars", "c='A'\tuc=200\t=%d", chars('A', (char)200));
	expect("flip", "b=true\t=%s", flip(true) ? "true" : "false");
	expect("next_color", "c=RED\t=%s",
	       next_color(RED) == BLUE ? "BLUE" : "RED");

	void *p = (void *)0x123400;
	void *q = bump(p);
	expect("bump", "p=%p\t=%p", p, q);

	const char *hello = "hello";
	size_t n = slen(hello);
	/* With a capture plan the text; without, the address. */
	expect("slen", "s=\"hello\"\t#s=%p\t=%zu", (const void *)hello, n);

	double d = scale(1.25, 3.5f);
	expect("scale", "d=%.17g\tf=%.9g\t=%.17g", 1.25, (double)3.5f, d);
	float h = halve(5.5f);
	expect("halve", "f=%.9g\t=%.9g", 5.5, (double)h);
	long double x = ldmul(2.5L);
	expect("ldmul", "x=%.21Lg\t=%.21Lg", 2.5L, x);

	struct pt pt = mkpt(3, 4);
	expect("mkpt", "x=3\ty=4\t={x=%d, y=%d}", pt.x, pt.y);
	expect("ptsum", "p={x=5, y=6}\t=%d", ptsum((struct pt){5, 6}));
	struct mix m = mkmix(7, 0.5);
	expect("mkmix", "i=7\td=0.5\t={i=%d, d=%.17g}", m.i, m.d);
	struct big b = mkbig(10);
	expect("mkbig", "v=10\t={a={%ld, %ld, %ld, %ld, %ld}}", b.a[0],
	       b.a[1], b.a[2], b.a[3], b.a[4]);
	expect("bigsum", "b={a={1, 2, 3, 4, 5}}\t=%ld",
	       bigsum((struct big){{1, 2, 3, 4, 5}}));
	expect("tdef", "v=41\t=%lu", tdef(41));
	expect("many", "a1=1\ta2=2\ta3=3\ta4=4\ta5=5\ta6=6\ta7=7\ta8=8\t=%ld",
	       many(1, 2, 3, 4, 5, 6, 7, 8));
	expect("vsum", "n=3\t=%d", vsum(3, 10, 20, 30));

	for (int i = 0; i < 64; i++)
		span_data[i] = i;
	long sum = span(&span_data[2], &span_data[50]);
	expect("span", "lo=%p\thi=%p\t=%ld", (void *)&span_data[2],
	       (void *)&span_data[50], sum);

	int f = fact(5);
	(void)f;
	for (int i = 5, r = 120; i >= 1; r /= i, i--)
		expect("fact", "n=%d\t=%d", i, r);

#ifdef __x86_64__
	__int128 big = (__int128)1 << 100;
	__int128 r = wide(big + 7);
	printf("C\twide\ta=");
	put_i128(big + 7);
	printf("\t=");
	put_i128(r);
	printf("\n");
#endif
	sink = 0;
	return 0;
}
