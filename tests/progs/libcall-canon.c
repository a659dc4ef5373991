/* libcall-canon.c -- a function whose address the program takes: built
 * non-PIE, the program's PLT entry is malloc's address in every module
 * (a canonical PLT entry; lld and mold make one on i386 for each
 * function the program calls), which the libraries' own calls of malloc
 * jump through too.  Those are not the program's calls, and the address
 * the program and a library see stays the same. */
#include <stdio.h>
#include <stdlib.h>

void *(*plain_malloc(int n))(size_t); /* libplain.so, not instrumented */

int main(int argc, char **argv)
{
	(void)argv;
	void *(*volatile mine)(size_t) = malloc;
	/* volatile: kept at -O2 (clang drops a malloc whose block is not
	 * used, with its free) */
	char *volatile p = malloc((size_t)argc + 8);
	printf("%d\n", mine == plain_malloc(argc));
	free(p);
	return 0;
}
