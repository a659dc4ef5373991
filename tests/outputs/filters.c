/* filters.c -- a small call tree of known shape for the filter tests:
 *
 *   main -> middle -> inner -> leaf, leaf
 *                  -> leaf
 *        -> noisy  -> leaf
 *        -> slow   -> leaf          (slow lasts 3 ms, the rest microseconds)
 *        -> middle (the same again)
 */
#include <time.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static int leaf(int x)
{
	return x + 1;
}

NOINLINE static int inner(int x)
{
	int a = leaf(x);
	int b = leaf(x + 1);
	return a + b;
}

NOINLINE static int middle(int x)
{
	int a = inner(x);
	return a + leaf(x);
}

NOINLINE static int noisy(int x)
{
	return leaf(x) * 2;
}

NOINLINE static int slow(void)
{
	struct timespec ts = {0, 3000000};

	nanosleep(&ts, NULL);
	return leaf(0);
}

int main(void)
{
	int sum = middle(1);

	sum += noisy(2);
	sum += slow();
	sum += middle(3);
	return sum == 0;
}
