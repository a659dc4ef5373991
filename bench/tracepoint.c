/* tracepoint.c -- what a disabled CTRACE_TRACEPOINT costs.
 *
 *   ./tracepoint N     runs a loop of N iterations twice, without and with
 *                      a (disabled) tracepoint in its body, and prints
 *                      "plain_ns=.. tracepoint_ns=.." per iteration.
 * Built without -finstrument-functions: only the tracepoint is measured. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ctrace.h"

static unsigned long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

__attribute__((noinline)) static unsigned step_plain(unsigned x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2654435761u + 1;
}

__attribute__((noinline)) static unsigned step_traced(unsigned x)
{
	__asm__ volatile("" : "+r"(x));
	CTRACE_TRACEPOINT(bench_step, "x=%u", x);
	return x * 2654435761u + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	unsigned x = 1;
	double best[2] = {1e30, 1e30};
	for (int round = 0; round < 5; round++) {
		unsigned long long t0 = now_ns();
		for (long i = 0; i < n; i++)
			x = step_plain(x);
		unsigned long long t1 = now_ns();
		for (long i = 0; i < n; i++)
			x = step_traced(x);
		unsigned long long t2 = now_ns();
		if ((double)(t1 - t0) / n < best[0])
			best[0] = (double)(t1 - t0) / n;
		if ((double)(t2 - t1) / n < best[1])
			best[1] = (double)(t2 - t1) / n;
	}
	printf("plain_ns=%.3f tracepoint_ns=%.3f checksum=%u\n", best[0],
	       best[1], x);
	return 0;
}
