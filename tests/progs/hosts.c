/* hosts.c -- several functions inline the same helper and are called
 * through one indirect call site (a table of function pointers).  The
 * helper's inlined copies all report the call site of the table's call and
 * run in their host's frame, frames of different sizes: one (function,
 * call site) pair whose frame depends on which host it ran in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;

static inline int helper(int x)
{
	sink += x;
	return x + 1;
}

__attribute__((noinline)) static void fill(char *p, size_t n, int x)
{
	memset(p, x, n);
}

__attribute__((noinline)) static int host_small(int x)
{
	return helper(x) * 2;
}

__attribute__((noinline)) static int host_medium(int x)
{
	char buf[100];
	fill(buf, sizeof buf, x);
	return helper(buf[x % 100]) + 3;
}

__attribute__((noinline)) static int host_large(int x)
{
	char buf[3000];
	fill(buf, sizeof buf, x);
	int r = helper(buf[x % 3000]);
	return r + helper(buf[(x + 1) % 3000]);
}

__attribute__((noinline)) static int host_huge(int x)
{
	char buf[70000];
	fill(buf, sizeof buf, x);
	return helper(buf[x % 70000]) - 1;
}

static int (*const table[])(int) = {host_small, host_medium, host_large,
				    host_huge};

__attribute__((noinline)) static int dispatch(unsigned i, int x)
{
	return table[i % 4](x); /* the one indirect call site */
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 8;
	unsigned state = 12345;
	long s = 0;

	for (unsigned i = 0; i < n; i++) {
		state = state * 1103515245u + 12345u;
		s += dispatch(state >> 16, (int)i);
	}
	printf("%ld\n", s);
	return 0;
}
