/* reload-plugin.c -- built twice, with NAME(x) naming its functions
 * first_x, then second_x: two libraries of the same size, which
 * shlib-reload.c loads one after the other at the same address. */

#define NOINLINE __attribute__((noinline))

NOINLINE int NAME(help)(int x)
{
	return x + 3;
}

NOINLINE int NAME(run)(int x)
{
	return NAME(help)(x) * 2;
}
