/* cfi.c -- the recorder's FDE search (lib/cfi.c, ctrace__cfa_at): the
 * FDE found for a return address one byte into each of 512 functions
 * starts at that function (the compiler gives each its own FDE), whatever
 * the order of the lookups: in the order of the code, backwards, by
 * strides, scrambled, and each after a lookup in another object (the C
 * library), so that the search starts from every kind of hint: next to
 * the address, far from it, and another object's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "tap.h"

#define NOINLINE __attribute__((noinline))
volatile int sink;

#define F(n)                                                                 \
	NOINLINE static int f##n(int x)                                      \
	{                                                                    \
		return x * 3 + sink + n;                                     \
	}
#define F8(n)                                                                \
	F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
#define F64(n)                                                               \
	F8(n##0) F8(n##1) F8(n##2) F8(n##3) F8(n##4) F8(n##5) F8(n##6)      \
		F8(n##7)
F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7) F64(10)

#define P8(n)                                                                \
	f##n##0, f##n##1, f##n##2, f##n##3, f##n##4, f##n##5, f##n##6, f##n##7
#define P64(n)                                                               \
	P8(n##0), P8(n##1), P8(n##2), P8(n##3), P8(n##4), P8(n##5),          \
		P8(n##6), P8(n##7)
typedef int (*fn_t)(int);
static fn_t fns[] = {P64(1), P64(2), P64(3), P64(4),
		     P64(5), P64(6), P64(7), P64(10)};
#define N (sizeof fns / sizeof fns[0])

static uintptr_t addr[N];

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

/* The lookups in `order`: the number of them whose FDE does not start at
 * the function (each told). */
static int lookups(const char *what, const size_t *order, int other)
{
	int bad = 0;
	for (size_t k = 0; k < N; k++) {
		struct ctrace__cfa rule;
		uintptr_t begin = 0, a = addr[order[k]];
		if (other) {
			uintptr_t lib = (uintptr_t)&abort + 1, b = 0;
			if (ctrace__cfa_at(lib, &rule, &b) == 0 && b > lib - 1)
				bad++, tap_diag("%s: abort's FDE after it", what);
		}
		if (ctrace__cfa_at(a + 1, &rule, &begin) != 0 || begin != a) {
			bad++;
			tap_diag("%s: function %zu at %#lx: FDE at %#lx", what,
				 order[k], (unsigned long)a,
				 (unsigned long)begin);
		}
	}
	return bad;
}

int main(void)
{
	size_t order[N];
	for (size_t k = 0; k < N; k++)
		addr[k] = (uintptr_t)fns[k];
	qsort(addr, N, sizeof addr[0], cmp_addr);
	tap_plan(5);

	for (size_t k = 0; k < N; k++)
		order[k] = k;
	tap_ok(lookups("forward", order, 0) == 0, "in the order of the code");
	for (size_t k = 0; k < N; k++)
		order[k] = N - 1 - k;
	tap_ok(lookups("backward", order, 0) == 0, "backwards");
	for (size_t k = 0; k < N; k++)
		order[k] = k * 17 % N;
	tap_ok(lookups("stride", order, 0) == 0, "by strides of 17");
	/* a fixed permutation: an LCG's sequence, each index once */
	for (size_t k = 0, i = 0; k < N; k++, i = (i * 5 + 3) % N)
		order[k] = i;
	tap_ok(lookups("scrambled", order, 0) == 0, "scrambled");
	for (size_t k = 0; k < N; k++)
		order[k] = k;
	tap_ok(lookups("other object", order, 1) == 0,
	       "each after a lookup in the C library");
	sink += fns[0](1);
	return tap_failed != 0;
}
