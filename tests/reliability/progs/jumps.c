/* jumps.c -- longjmp at random through frames of many sizes.
 *
 *   jumps SEED CALLS
 *
 * Makes CALLS calls of functions with frames from a few bytes to several
 * KiB (one passes stack arguments), each returning, calling further or
 * jumping with longjmp to a random caller, as a seeded generator decides.
 * Prints "DEPTH NAME" for every call, in order, main at depth 0: the
 * depths a trace of the run must show.
 */
#include <setjmp.h>

#include "walk.h"

#define MAX_DEPTH 40

static int depth;
static jmp_buf *frames[MAX_DEPTH + 1];

static void (*const *callees)(void);
static unsigned n_callees;
UNTRACED static void call_one(void);

/* What a function does once entered: calls, a jump or nothing. */
UNTRACED static void step(int my)
{
	unsigned n = pick(4);

	for (unsigned i = 0; i < n && budget > 0; i++) {
		unsigned r = pick(10);
		budget--;
		if (r < 6 && my < MAX_DEPTH)
			call_one();
		else if (r < 8 && my > 1)
			longjmp(*frames[1 + pick((unsigned)my - 1)], 1);
	}
}

#define BODY(name, size)                                                       \
	volatile char buf[size];                                               \
	jmp_buf env;                                                           \
	int my = ++depth;                                                      \
	buf[0] = 0;                                                            \
	note(my, name);                                                        \
	if (setjmp(env))                                                       \
		depth = my;                                                    \
	frames[my] = &env;                                                     \
	step(my);                                                              \
	frames[my] = NULL;                                                     \
	depth = my - 1;                                                        \
	(void)buf[0];

NOINLINE static void tiny(void) { BODY("tiny", 1) }
NOINLINE static void small(void) { BODY("small", 40) }
NOINLINE static void medium(void) { BODY("medium", 300) }
NOINLINE static void large(void) { BODY("large", 5000) }

NOINLINE static long stack_args(long a, long b, long c, long d, long e,
				long f, long g, long h)
{
	BODY("stack_args", 24)
	return a + b + c + d + e + f + g + h;
}

/* A jump here just returns. */
NOINLINE static void with_args(void)
{
	jmp_buf env;
	int my = ++depth;

	note(my, "with_args");
	if (setjmp(env) == 0) {
		frames[my] = &env;
		stack_args(1, 2, 3, 4, 5, 6, 7, (long)pick(9));
	}
	frames[my] = NULL;
	depth = my - 1;
}

static void (*const table[])(void) = {tiny, small, medium, large, with_args};

UNTRACED static void call_one(void)
{
	callees[pick(n_callees)]();
}

int main(int argc, char **argv)
{
	if (!walk_start(argc, argv))
		return 2;
	callees = table;
	n_callees = sizeof table / sizeof table[0];
	note(0, "main");
	while (budget > 0) {
		budget--;
		call_one();
	}
	return 0;
}
