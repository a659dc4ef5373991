/* libafter.c -- an instrumented shared library whose destructor makes
 * calls: the loader runs it after the executable's own destructors, and
 * so after the recorder has finished the trace file. */

#define NOINLINE __attribute__((noinline))

static int late_calls;

NOINLINE static int late_step(int i)
{
	return i + 1;
}

NOINLINE void after_exit_calls(int n)
{
	late_calls = n;
}

__attribute__((destructor)) NOINLINE static void late_fini(void)
{
	volatile int sum = 0;
	for (int i = 0; i < late_calls; i++)
		sum += late_step(i);
}
