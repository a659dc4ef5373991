/* libplain.c -- a shared library built without -finstrument-functions:
 * the program's calls into it are library calls, and its own call to
 * strlen shows only with --nest-libcall. */
#include <string.h>

int plain_sum(const char *s)
{
	return (int)strlen(s) + 1;
}
