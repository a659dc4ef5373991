/* funcptr.c -- calls through function pointers, static functions, and a
 * function called from two places. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

typedef int (*binary_op)(int, int);

NOINLINE static int add(int a, int b)
{
	return a + b;
}

NOINLINE static int mul(int a, int b)
{
	return a * b;
}

NOINLINE int apply(binary_op op, int a, int b)
{
	return op(a, b);
}

NOINLINE static int square(int x)
{
	return mul(x, x);
}

struct handler {
	const char *name;
	int (*run)(int);
};

NOINLINE static int negate(int x)
{
	return -x;
}

static const struct handler handlers[] = {
	{ "square", square },
	{ "negate", negate },
};

/* The table is read through a volatile index so that the compiler cannot
 * resolve the indirect calls at build time. */
static volatile int first_handler = 0;

int main(void)
{
	binary_op ops[2] = { add, mul };
	int acc = 0;
	int i;

	for (i = 0; i < 2; i++)
		acc += apply(ops[i], 3, 4);			/* 7 + 12 */
	for (i = first_handler; i < 2; i++)
		acc += handlers[i].run(5);			/* 25 - 5 */
	acc = add(acc, 1);
	printf("%d\n", acc);
	return acc == 40 ? 0 : 1;
}
