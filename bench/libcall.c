/* libcall.c -- a library-call-heavy workload for bench/libcall: per round,
 * malloc, snprintf, strlen, snprintf, strcmp and free, from one
 * instrumented function, so that library calls outnumber the program's own
 * calls six to one.  Prints the number of library calls made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int round_of(int i, char *buf, size_t n)
{
	char *p = malloc(64);
	/* no memset or copy: compilers inline those */
	snprintf(p, 64, "%0*d", 40 + i % 16, i);
	int r = (int)strlen(p);
	snprintf(buf, n, "%d", i);
	r += strcmp(buf, p) > 0;
	free(p);
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	char buf[32];
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += round_of(i, buf, sizeof buf);
	printf("%ld %ld\n", sum, 6L * n);
	return 0;
}
