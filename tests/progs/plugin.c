/* plugin.c -- an instrumented shared library loaded with dlopen(). */

#define NOINLINE __attribute__((noinline))

NOINLINE static int plugin_helper(int x)
{
	return x - 1;
}

NOINLINE int plugin_run(int x)
{
	return plugin_helper(x) * 2;	/* CALL:plugin-helper */
}
