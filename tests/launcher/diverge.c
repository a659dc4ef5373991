/* diverge.c -- a program whose calls depend on its argument from the
 * fourth step on, and that passes a stack address (different in every
 * run), for ctrace diff. */
#include <stdlib.h>

#define NI __attribute__((noinline))

static volatile int sink;

NI void note(int *p)
{
	sink = *p;
}

NI int check(int x)
{
	return x % 7 == 0;
}

NI int step(int i, int x)
{
	return check(x + i);
}

int main(int argc, char **argv)
{
	int seed = argc > 1 ? atoi(argv[1]) : 0, hits = 0;

	note(&hits);
	for (int i = 0; i < 5; i++)
		hits += step(i, i < 3 ? 10 : seed);
	return hits > 100;
}
