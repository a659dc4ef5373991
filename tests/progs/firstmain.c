/* firstmain.c -- main is the program's first instrumented call (no
 * constructor before it): its arguments and return value are captured as
 * any other call's.
 *
 *	firstmain ARGS...	prints "argc N" and "main returns R"
 */
#include <stdio.h>

__attribute__((noinline)) int inner(int argc, char **argv)
{
	return argc + (argv[0] != NULL);
}

int main(int argc, char **argv)
{
	int r = inner(argc, argv) - 1;
	printf("argc %d\nmain returns %d\n", argc, r);
	return r;
}
