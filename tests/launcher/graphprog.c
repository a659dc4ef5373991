/* graphprog.c -- a program whose call paths to work() depend on its
 * argument, for ctrace graph FUNC --diff: with N > 3, work also calls
 * helper, and is called a second time through other. */
#include <stdlib.h>

#define NI __attribute__((noinline))

static volatile int sink;

NI int leaf(int x)
{
	sink = x;
	return x * 3;
}

NI int helper(int x)
{
	return leaf(x) + 1;
}

NI int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i);
	if (n > 3)
		s += helper(n);
	return s;
}

NI int other(int n)
{
	return work(n) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, s = work(2);

	if (n > 3)
		s += other(n);
	return s == 12345;
}
