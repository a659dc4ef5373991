/* shlib.c -- calls into libdemo.so (linked) and, when given its path,
 * into a plugin loaded with dlopen() and unloaded again before exit. */
#include <dlfcn.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

int demo_compute(int x);
int demo_callback(int (*fn)(int), int x);

NOINLINE static int exe_twice(int x)
{
	return 2 * x;
}

NOINLINE static int run_plugin(const char *path, int x)
{
	void *handle = dlopen(path, RTLD_NOW);
	int (*run)(int);
	int result;

	if (!handle) {
		fprintf(stderr, "%s\n", dlerror());
		return -1000;
	}
	*(void **)&run = dlsym(handle, "plugin_run");
	if (!run)
		return -1000;
	result = run(x);	/* CALL:plugin-run */
	dlclose(handle);
	return result;
}

int main(int argc, char **argv)
{
	int result = demo_compute(3);			/* 10 */

	result += demo_callback(exe_twice, 4);		/* 18 */
	if (argc > 1)
		result += run_plugin(argv[1], 5);	/* 26 */
	printf("%d\n", result);
	return result == (argc > 1 ? 26 : 18) ? 0 : 1;
}
