/* ifunc.c -- a function chosen by an IFUNC resolver that is itself
 * instrumented: the loader runs the resolver while it relocates the
 * program, before the C library has set up the environment. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE static void leaf(void)
{
	sink++;
}

static int answer_impl(void)
{
	return 42;
}

NOINLINE static void *resolve_answer(void)
{
	leaf();
	return (void *)answer_impl;
}

int answer(void) __attribute__((ifunc("resolve_answer")));

int main(void)
{
	leaf();
	printf("ifunc %d\n", answer());
	return 0;
}
