/* callsite.h -- a function defined in a header, to check that call sites
 * in another file than the caller's are named by their own file. */

NOINLINE static int from_header(int x)
{
	return inner(x) + 1;	/* CALL:header-inner */
}
