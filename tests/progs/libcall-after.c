/* libcall-after.c -- a library call of no arguments made right after
 * another call.  Built with gcc -m32 -O0, main calls rand at the stack
 * pointer it had before it pushed its entry hook's arguments, above the
 * hook's, and main realigns its stack, so its CFA (a DWARF expression) is
 * not known: rand must still nest in main. */
#include <stdio.h>
#include <stdlib.h>

static void first(int n)
{
	printf("first %d\n", n);
}

int main(int argc, char **argv)
{
	(void)argv;
	first(argc);
	int r = rand();
	printf("%d\n", r >= 0);
	return 0;
}
