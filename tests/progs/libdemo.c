/* libdemo.c -- an instrumented shared library linked at build time.  It
 * calls a static function of its own and back into the executable. */

#define NOINLINE __attribute__((noinline))

NOINLINE static int lib_square(int x)
{
	return x * x;
}

NOINLINE int demo_compute(int x)
{
	return lib_square(x) + 1;	/* CALL:lib-square */
}

NOINLINE int demo_callback(int (*fn)(int), int x)
{
	return fn(x);	/* CALL:callback */
}
