/* libplain.c -- a shared library built without -finstrument-functions:
 * the program's calls into it are library calls, and its own call to
 * strlen shows only with --nest-libcall. */
#include <stdlib.h>
#include <string.h>

int plain_sum(const char *s)
{
	return (int)strlen(s) + 1;
}

/* malloc's address as this library sees it: the program's canonical PLT
 * entry when the program has one (libcall-canon.c compares them).  n is
 * not used: an argument, so that i386 -O0 code pushes one (the tree
 * nests a library call called with the stack above the caller's entry
 * hook's outside it). */
void *(*plain_malloc(int n))(size_t)
{
	(void)n;
	return malloc;
}
