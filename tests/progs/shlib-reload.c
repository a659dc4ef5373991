/* shlib-reload.c -- loads the library argv[1] and calls its first_run,
 * unloads it, then loads argv[2] (the same size: the loader puts it where
 * the first was) and calls its second_run.  Between the two, no
 * instrumented code runs, and a millisecond passes (longer than the
 * recorder trusts what it knows of a library loaded with dlopen). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
	static const char *const names[] = {"first_run", "second_run"};
	void *base[2] = {NULL, NULL};

	for (int i = 0; i < 2 && i + 1 < argc; i++) {
		void *handle = dlopen(argv[i + 1], RTLD_NOW);
		int (*run)(int);
		Dl_info info;

		if (!handle) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		*(void **)&run = dlsym(handle, names[i]);
		if (!run || !dladdr(*(void **)&run, &info))
			return 1;
		base[i] = info.dli_fbase;
		printf("%s %d\n", names[i], run(i + 1));
		dlclose(handle);
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	printf("%s\n", base[0] == base[1] ? "same address" : "moved");
	return 0;
}
