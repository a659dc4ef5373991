/* libcall-canon.c -- a function whose address the program takes: built
 * non-PIE, the program's PLT entry is malloc's address in every module
 * (a canonical PLT entry; lld and mold make one on i386 for each
 * function the program calls), which the libraries' own calls of malloc
 * jump through too.  Those are not the program's calls, and the address
 * the program and a library see stays the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *(*plain_malloc(void))(size_t); /* libplain.so, not instrumented */

int main(int argc, char **argv)
{
	void *(*volatile mine)(size_t) = malloc;
	char *p = malloc(strlen(argv[0]) + (size_t)argc);
	printf("%d\n", mine == plain_malloc());
	free(p);
	return 0;
}
