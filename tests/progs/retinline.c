/* retinline.c -- a static leaf inlined into mid at -O1 and above: its
 * hooks run in mid's frame and read mid's return address, which the
 * return value capture replaced with the recorder's trampoline.  Prints
 * every value mid and top return, the oracle for the tree's. */
#include <stdio.h>
#include <stdlib.h>

static int leaf(int x)
{
	return x * 3;
}

__attribute__((noinline)) int mid(int x)
{
	int r = leaf(x);
	return r + 1;
}

__attribute__((noinline)) int top(int x)
{
	return mid(x) * 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3, s = 0;

	for (int i = 0; i < n; i++) {
		int t = top(i);
		printf("mid %d\ntop %d\n", t / 2, t);
		s += t;
	}
	printf("%d\n", s);
	return 0;
}
