/* fixture.c -- the C fixture of the resolver tests (see fixture.h).
 *
 * Exported and static functions, a function inlined into another, a call
 * from a cold (.cold) part and from a constant-propagated clone.  Built
 * as a program, or with -DFIXTURE_SHARED as a shared library whose
 * fixture_run() the program fixture-main.c calls.
 */
#include "fixture.h"

#include <stdlib.h>

volatile int fixture_sink;

#ifdef FIXTURE_OTHER
volatile int fixture_other = 1; /* a different build, another build-id */
#endif

/* Every recorded call calls this: its return address is the call site. */
NOINLINE void fixture_callee(int i)
{
	RECORD_RETURN(i);
	fixture_sink += i;
}

/* A cold callee: calls to it move to the caller's .cold part (gcc -O2). */
__attribute__((cold)) NOINLINE void fixture_cold_callee(int i)
{
	RECORD_RETURN(i);
	fixture_sink -= i;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#define COLD "maybe_fail.cold"
#define COLD_EXP 0 /* a local symbol */
#else
#define COLD "maybe_fail"
#define COLD_EXP 1
#endif

enum { leaf_first = __LINE__ };
NOINLINE int leaf(int x) {
	fixture_callee(SITE(0, "leaf", "leaf", 1, "leaf"));
	return x + 1;
}
enum { leaf_last = __LINE__ };

enum { helper_first = __LINE__ };
static NOINLINE int helper(int x) {
	fixture_callee(SITE(1, "helper", "helper", 0, "helper"));
	return x * 2;
}
enum { helper_last = __LINE__ };

/* Always inlined: the call inside it belongs to the function it is
 * inlined into, at the line of the inline call. */
static ALWAYS_INLINE int twice(int slot, const char *caller, int x)
{
	fixture_callee(SITE(slot, caller, caller, 1, "twice"));
	return 2 * x;
}

enum { outer_first = __LINE__ };
NOINLINE int outer(int x) {
	int r = twice(INLINED_AT(2, "outer"), "outer", x);
	fixture_callee(SITE(3, "outer", "outer", 1, "outer"));
	return r + leaf(x) + helper(x);
}
enum { outer_last = __LINE__ };

enum { maybe_fail_first = __LINE__ };
NOINLINE int maybe_fail(int x) {
	if (x == 12345) {
		fixture_cold_callee(SITE(4, COLD, COLD, COLD_EXP, "maybe_fail"));
		return -1;
	}
	fixture_callee(SITE(5, "maybe_fail", "maybe_fail", 1, "maybe_fail"));
	return x;
}
enum { maybe_fail_last = __LINE__ };

/* gcc -O2 may specialize this for factor == 3 as scale.constprop.0: the
 * expected name "scale*" accepts scale and scale.SUFFIX. */
static __attribute__((noinline)) int scale(int x, int factor)
{
	fixture_callee(SITE(6, "scale*", "scale*", 0, "scale"));
	return x * factor;
}

NOINLINE int run_all(int x) {
	int r = outer(x) + maybe_fail(x) + maybe_fail(12345);
	r += scale(x, 3);
	fixture_callee(SITE(7, "run_all", "run_all", 1, "run_all"));
	return r + scale(r, 3);
}

#define FUNC(f, exported)                                                  \
	fixture_print_func((const void *)&f, #f, #f, exported, __FILE__,   \
			   f##_first, f##_last)

#ifdef FIXTURE_SHARED
int fixture_run(int argc);
int fixture_run(int argc)
#else
int main(int argc, char **argv)
#endif
{
#ifndef FIXTURE_SHARED
	(void)argv;
#endif
	fixture_sink = run_all(argc);
	fixture_print_module((const void *)&leaf);
	FUNC(leaf, 1);
	FUNC(helper, 0);
	FUNC(outer, 1);
	FUNC(maybe_fail, 1);
	fixture_print_sites(__FILE__);
	return fflush(stdout) == 0 ? 0 : 1;
}
