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
 * entry when the program has one (libcall-canon.c compares them). */
void *(*plain_malloc(void))(size_t)
{
	return malloc;
}
