/* libcall-plugin.c -- an instrumented library loaded with dlopen: its
 * library calls are recorded from its first call on. */
#include <stdio.h>
#include <string.h>

int plug_len(const char *s)
{
	int n = (int)strlen(s);
	printf("%d\n", n);
	return n;
}
