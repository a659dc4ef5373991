/* firstcallee.c -- 64 callers with the same body, each calling its own 8
 * functions (all with one fixed body) from one call site.  Every caller
 * is called once in turn (all its callees are then called for the first
 * time: the recorder's slow path for 8 new pairs falls inside the
 * caller's call), then ROUNDS - 1 more times in turn (known pairs).
 * tests/durations.sh compares each caller's first duration with its
 * later ones.
 *
 *	firstcallee [delay NS]
 *	prints "sink N" (the functions' results, summed) and "elapsed N"
 *	(testdelay.h)
 */
#include <stdint.h>
#include <stdio.h>

#include "testdelay.h"

#define NOINLINE __attribute__((noinline))
#define ROUNDS 9
#define CALLEES 8

volatile int sink;

/* A fixed amount of work, the same in every callee and every call. */
#define G(n)                                                                 \
	NOINLINE int g##n(int x)                                             \
	{                                                                    \
		int acc = x + n;                                             \
		for (int i = 0; i < 8; i++)                                  \
			acc = acc * 3 + sink;                                \
		return acc;                                                  \
	}
#define G8(n)                                                                \
	G(n##0) G(n##1) G(n##2) G(n##3) G(n##4) G(n##5) G(n##6) G(n##7)
#define G64(n)                                                               \
	G8(n##0) G8(n##1) G8(n##2) G8(n##3) G8(n##4) G8(n##5) G8(n##6)      \
		G8(n##7)
G64(1)
G64(2)
G64(3)
G64(4)
G64(5)
G64(6)
G64(7)
G64(8)

#define P8(n)                                                                \
	g##n##0, g##n##1, g##n##2, g##n##3, g##n##4, g##n##5, g##n##6, g##n##7
#define P64(n)                                                               \
	P8(n##0), P8(n##1), P8(n##2), P8(n##3), P8(n##4), P8(n##5),          \
		P8(n##6), P8(n##7)
typedef int (*fn_t)(int);
/* not const: the calls stay indirect, never inlined */
fn_t callees[] = {P64(1), P64(2), P64(3), P64(4),
		  P64(5), P64(6), P64(7), P64(8)};
#define N_CALLERS (sizeof callees / sizeof callees[0] / CALLEES)

/* Caller c<n> (n in octal) calls callees n * CALLEES to n * CALLEES +
 * CALLEES - 1. */
#define C(n)                                                                 \
	NOINLINE int c##n(int x)                                             \
	{                                                                    \
		int acc = 0;                                                 \
		for (int j = 0; j < CALLEES; j++)                            \
			acc += callees[0##n * CALLEES + j](x);                \
		return acc;                                                  \
	}
#define C8(n)                                                                \
	C(n##0) C(n##1) C(n##2) C(n##3) C(n##4) C(n##5) C(n##6) C(n##7)
C8(0)
C8(1)
C8(2)
C8(3)
C8(4)
C8(5)
C8(6)
C8(7)

/* c00 to c77: callers 0 to 63 (octal) */
#define Q8(n)                                                                \
	c##n##0, c##n##1, c##n##2, c##n##3, c##n##4, c##n##5, c##n##6, c##n##7
fn_t callers[] = {Q8(0), Q8(1), Q8(2), Q8(3), Q8(4), Q8(5), Q8(6), Q8(7)};

/* The code read as data first: a first call then finds it in the caches
 * as later calls do, and what differs is the recorder's work. */
NOINLINE static void warm_code(void)
{
	uintptr_t lo = (uintptr_t)callees[0], hi = lo;
	for (size_t k = 0; k < sizeof callees / sizeof callees[0]; k++) {
		uintptr_t a = (uintptr_t)callees[k];
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	for (size_t k = 0; k < N_CALLERS; k++) {
		uintptr_t a = (uintptr_t)callers[k];
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	unsigned sum = 0;
	for (uintptr_t a = lo & ~(uintptr_t)63; a < hi + 256; a += 64)
		sum += *(volatile const unsigned char *)a;
	sink += (int)(sum & 0);
}

int main(int argc, char **argv)
{
	testdelay_set(argc, argv);
	warm_code();
	uint64_t start = testdelay_now();
	for (int r = 0; r < ROUNDS; r++)
		for (size_t k = 0; k < N_CALLERS; k++)
			sink += callers[k](r);
	uint64_t elapsed = testdelay_now() - start;
	printf("sink %d\nelapsed %llu\n", sink, (unsigned long long)elapsed);
	return 0;
}
