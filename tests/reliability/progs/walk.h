/* walk.h -- what the random-walk programs (jumps.c, throws.cc,
 * coroutines.c) share: a seeded generator, the calls left to make, and
 * the "DEPTH NAME" line each call prints for the test to compare with the
 * trace.  Neither is traced. */
#ifndef WALK_H
#define WALK_H

#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define UNTRACED __attribute__((no_instrument_function))

static unsigned long long seed;
static long budget; /* calls left */

/* Reads SEED CALLS from the command line; false on a usage error. */
UNTRACED static int walk_start(int argc, char **argv)
{
	if (argc != 3)
		return 0;
	seed = strtoull(argv[1], NULL, 10);
	budget = strtol(argv[2], NULL, 10);
	return 1;
}

UNTRACED static unsigned pick(unsigned n)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(seed >> 33) % n;
}

UNTRACED static void note(int d, const char *name)
{
	printf("%d %s\n", d, name);
}

#endif
