/* libcall-inst.c -- library calls into instrumented code: into
 * libdemo.so (instrumented, linked at build time), one of whose functions
 * calls back into the program, and through the slots of an instrumented
 * plugin loaded with dlopen (argv[1], libcall-instplug.c), into
 * libdemo.so and back into the program (built with -rdynamic). */
#include <dlfcn.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

int demo_compute(int x);
int demo_callback(int (*fn)(int), int x);
int inst_exe_add(int x);

NOINLINE static int exe_twice(int x)
{
	return 2 * x;
}

/* Called by the plugin through its PLT. */
NOINLINE int inst_exe_add(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	int result = demo_compute(3);			/* 10 */
	int (*run)(int);
	void *handle;

	result += demo_callback(exe_twice, 4);		/* 18 */
	if (argc < 2)
		return 1;
	handle = dlopen(argv[1], RTLD_LAZY);
	if (!handle) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	*(void **)&run = dlsym(handle, "instplug_run");
	if (!run)
		return 1;
	result += run(5);				/* 50 */
	dlclose(handle);
	printf("%d\n", result);
	return result == 50 ? 0 : 1;
}
