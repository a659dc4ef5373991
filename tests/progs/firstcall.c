/* firstcall.c -- 128 functions with the same body, each called first from
 * one call site in turn (a new function: the recorder's slow path for a
 * new pair), then ROUNDS - 1 more times from there (known pairs), then
 * ROUNDS times from a second call site (the first of them a new call site
 * of a known function).  tests/durations.sh compares the durations.
 *
 *	firstcall [delay NS]
 *	prints "sink N" (the functions' results, summed) and "elapsed N"
 *	(testdelay.h)
 */
#include <stdint.h>
#include <stdio.h>

#include "testdelay.h"

#define NOINLINE __attribute__((noinline))
#define ROUNDS 9

volatile int sink;

/* A fixed amount of work, the same in every function and every call,
 * and without a branch: a loop's branch, new to the branch predictors
 * at a function's first call, made that call 35 to 60 ns longer than
 * the later ones with no recorder at all (hooks that only read the TSC),
 * 1 to 4 ns without it. */
#define STEP acc = acc * 3 + sink;
#define F(n)                                                                 \
	NOINLINE int f##n(int x)                                             \
	{                                                                    \
		int acc = x + n;                                             \
		STEP STEP STEP STEP STEP STEP STEP STEP                      \
		return acc;                                                  \
	}
#define F8(n)                                                                \
	F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
#define F64(n)                                                               \
	F8(n##0) F8(n##1) F8(n##2) F8(n##3) F8(n##4) F8(n##5) F8(n##6)      \
		F8(n##7)
F64(1)
F64(2)

#define P8(n)                                                                \
	f##n##0, f##n##1, f##n##2, f##n##3, f##n##4, f##n##5, f##n##6, f##n##7
#define P64(n)                                                               \
	P8(n##0), P8(n##1), P8(n##2), P8(n##3), P8(n##4), P8(n##5),          \
		P8(n##6), P8(n##7)
typedef int (*fn_t)(int);
/* not const: the calls stay indirect, never inlined */
fn_t fns[] = {P64(1), P64(2)};
#define N (sizeof fns / sizeof fns[0])

/* The functions' code read as data first: a first call then finds it in
 * the caches as later calls do, and what differs is the recorder's. */
NOINLINE static void warm_code(void)
{
	uintptr_t lo = (uintptr_t)fns[0], hi = lo;
	for (size_t k = 1; k < N; k++) {
		uintptr_t a = (uintptr_t)fns[k];
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	unsigned sum = 0;
	for (uintptr_t a = lo & ~(uintptr_t)63; a < hi + 256; a += 64)
		sum += *(volatile const unsigned char *)a;
	sink += (int)(sum & 0);
}

NOINLINE static void site_one(void)
{
	for (int r = 0; r < ROUNDS; r++)
		for (size_t k = 0; k < N; k++)
			sink += fns[k](r);
}

NOINLINE static void site_two(void)
{
	for (int r = 0; r < ROUNDS; r++)
		for (size_t k = 0; k < N; k++)
			sink += fns[k](r);
}

int main(int argc, char **argv)
{
	testdelay_set(argc, argv);
	warm_code();
	uint64_t start = testdelay_now();
	site_one();
	site_two();
	uint64_t elapsed = testdelay_now() - start;
	printf("sink %d\nelapsed %llu\n", sink, (unsigned long long)elapsed);
	return 0;
}
