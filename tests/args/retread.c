/* retread.c -- return values read at the exit hook (a capture plan's
 * `exit` lines): each function prints the value it returns, as the tree
 * shows it, and on stderr how many of its calls had the recorder's
 * trampoline as their return address (none when the plan's `rx` names
 * it: the value is read where the plan proved it is). */
#include <stdio.h>

#define NOINL __attribute__((noinline))

/* The recorder's return trampoline (lib/retval.h), linked in. */
extern void ctrace__retval_trampoline(void)
	__attribute__((visibility("hidden")));
enum { CMP, SCALED, ABOVE, LOW, WIDE, HALF, QUARTER, PAIR, PICK, MIX, BIG,
       N };
static const char *const names[N] = {"cmp",  "scaled",  "above", "low",
				     "wide", "half",    "quarter", "pair",
				     "pick", "mix",     "big"};
static int patched[N];

/* The return address read after the entry hook ran: a volatile load of
 * the frame's slot (clang -O2 reads __builtin_return_address(0) before
 * the hook's call, when the trampoline is not there yet). */
#define CHECK(f)                                                           \
	(patched[f] += ((void *volatile *)__builtin_frame_address(0))[1] ==  \
		       (void *)ctrace__retval_trampoline)

struct two {
	long a, b;
};

/* Returned in memory: the recorder copies it from the caller's frame (a
 * RETVAL with MEM, which its exit's general path writes). */
struct three {
	long a, b, c;
};

volatile int sink;

NOINL int noise(int x)
{
	sink = x;
	return x;
}

NOINL int cmp(int a, int b)
{
	CHECK(CMP);
	noise(a);
	return (a > b) - (a < b);
}

NOINL long scaled(long x)
{
	CHECK(SCALED);
	long y = noise((int)x);
	return y * 1000003L - 7;
}

NOINL _Bool above(int x)
{
	CHECK(ABOVE);
	return noise(x) > 3;
}

NOINL signed char low(int x)
{
	CHECK(LOW);
	return (signed char)noise(x);
}

NOINL unsigned short wide(unsigned x)
{
	CHECK(WIDE);
	return (unsigned short)(noise((int)x) * 3u);
}

NOINL double half(int x)
{
	CHECK(HALF);
	return noise(x) / 2.0;
}

NOINL float quarter(int x)
{
	CHECK(QUARTER);
	return (float)noise(x) / 4.0f;
}

NOINL struct two pair(long a)
{
	CHECK(PAIR);
	struct two t = {a, noise((int)a) * 2L};
	return t;
}

NOINL int *pick(int *v, int i)
{
	CHECK(PICK);
	return v + noise(i);
}

NOINL unsigned mix(unsigned a, unsigned b)
{
	CHECK(MIX);
	unsigned x = (unsigned)noise((int)a);
	return x * 7u + b;
}

NOINL struct three big(long a)
{
	CHECK(BIG);
	struct three t = {a, noise((int)a) * 3L, -a};
	return t;
}

int main(void)
{
	static int v[8];
	for (int i = -2; i < 6; i++) {
		printf("cmp = %d\n", cmp(i, 1));
		printf("scaled = %ld\n", scaled(i * 100000L));
		printf("above = %s\n", above(i) ? "true" : "false");
		printf("low = %d\n", low(i * 70));
		printf("wide = %u\n", (unsigned)wide((unsigned)i * 30000u));
		printf("half = %g\n", half(i));
		printf("quarter = %g\n", (double)quarter(i));
		struct two t = pair(i);
		printf("pair = {a=%ld, b=%ld}\n", t.a, t.b);
		printf("pick = %p\n", (void *)pick(v, i + 2));
		printf("mix = %u\n", mix((unsigned)i, 5u));
		struct three b = big(i);
		printf("big = {a=%ld, b=%ld, c=%ld}\n", b.a, b.b, b.c);
	}
	for (int f = 0; f < N; f++)
		fprintf(stderr, "%s %d\n", names[f], patched[f]);
	return 0;
}
