/* plugin.c -- an instrumented shared library, built twice: with
 * -DNAME=alpha and -DNAME=beta.  Both have the same code at the same
 * offsets, so that when one is loaded where the other was, the same
 * addresses name different functions. */
#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)

__attribute__((noinline)) static int inner(int x)
{
	return x + 1;
}

__attribute__((noinline)) int CAT(NAME, entry)(int x)
{
	return inner(x) * 2;
}
