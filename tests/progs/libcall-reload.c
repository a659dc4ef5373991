/* libcall-reload.c -- loads and unloads an instrumented plugin (argv[1])
 * ROUNDS times, calling its function each time, which calls 8 functions
 * of this program whose names are 899 characters long through its PLT
 * (longnames.h): each load's 8 slots are redirected, and named, again.
 *
 *	libcall-reload PLUGIN ROUNDS	prints "sum N"
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "longnames.h"

/* Called by the plugin through its PLT (the program links with
 * -rdynamic).  Not static, not inlined: each is a slot of the plugin. */
#define DEFINE(p, k)                                                          \
	__attribute__((noinline)) int LONG_NAME(p)(int x)                     \
	{                                                                     \
		return x + k;                                                 \
	}
DEFINE(fa_, 1)
DEFINE(fb_, 2)
DEFINE(fc_, 3)
DEFINE(fd_, 4)
DEFINE(fe_, 5)
DEFINE(ff_, 6)
DEFINE(fg_, 7)
DEFINE(fh_, 8)

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long rounds = strtol(argv[2], NULL, 10), sum = 0;
	for (long r = 0; r < rounds; r++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		if (h == NULL) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		int (*f)(int) = (int (*)(int))dlsym(h, "plug_calls");
		sum += f((int)r);
		dlclose(h);
	}
	printf("sum %ld\n", sum);
	return 0;
}
