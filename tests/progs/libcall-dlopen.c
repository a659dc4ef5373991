/* libcall-dlopen.c -- dlopen, dlsym and dlclose of an instrumented
 * library (argv[1]) whose own library calls show under its function. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL)
		return 1;
	int (*f)(const char *) = (int (*)(const char *))dlsym(h, "plug_len");
	int n = f(argv[0]);
	n += f("x");
	dlclose(h);
	printf("%d\n", n + argc > 0);
	return 0;
}
