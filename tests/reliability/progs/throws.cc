// throws.cc -- C++ exceptions at random through frames of many sizes.
//
//   throws SEED CALLS
//
// jumps.c with throw and catch instead of longjmp and setjmp: each call
// returns, calls further or throws to a random caller, which catches and
// goes on.  Prints "DEPTH NAME" for every call, in order, main at depth 0.
#include "walk.h"

static const int max_depth = 40;
static int depth;

struct Jump {
	int level;
};

UNTRACED static void call_one();

UNTRACED static void step(int my)
{
	unsigned n = pick(4);

	for (unsigned i = 0; i < n && budget > 0; i++) {
		unsigned r = pick(10);
		budget--;
		if (r < 6 && my < max_depth)
			call_one();
		else if (r < 8 && my > 1)
			throw Jump{1 + (int)pick((unsigned)my - 1)};
	}
}

// A throw to this level is caught here, and the function goes on.
UNTRACED static void body(int my)
{
	for (;;) {
		try {
			step(my);
			return;
		} catch (const Jump &j) {
			if (j.level != my)
				throw;
			depth = my;
		}
	}
}

#define BODY(name, size)                                                       \
	volatile char buf[size];                                               \
	int my = ++depth;                                                      \
	buf[0] = 0;                                                            \
	note(my, name);                                                        \
	body(my);                                                              \
	depth = my - 1;                                                        \
	(void)buf[0];

NOINLINE static void tiny() { BODY("tiny", 1) }
NOINLINE static void small() { BODY("small", 40) }
NOINLINE static void medium() { BODY("medium", 300) }
NOINLINE static void large() { BODY("large", 5000) }

NOINLINE static long stack_args(long a, long b, long c, long d, long e,
				long f, long g, long h)
{
	BODY("stack_args", 24)
	return a + b + c + d + e + f + g + h;
}

// A throw to this level just returns.
NOINLINE static void with_args()
{
	int my = ++depth;

	note(my, "with_args");
	try {
		stack_args(1, 2, 3, 4, 5, 6, 7, (long)pick(9));
	} catch (const Jump &j) {
		if (j.level != my)
			throw;
	}
	depth = my - 1;
}

static void (*const table[])() = {tiny, small, medium, large, with_args};

UNTRACED static void call_one()
{
	table[pick(sizeof table / sizeof table[0])]();
}

int main(int argc, char **argv)
{
	if (!walk_start(argc, argv))
		return 2;
	note(0, "main");
	while (budget > 0) {
		budget--;
		call_one();
	}
	return 0;
}
