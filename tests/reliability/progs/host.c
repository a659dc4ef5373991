/* host.c -- an instrumented shared library that loads its own plugin by
 * bare name, found through the library's RUNPATH ($ORIGIN/plugins): the
 * loader looks at the RUNPATH of the object that called dlopen, so this
 * works only if that call reaches the loader from here. */
#include <dlfcn.h>
#include <stdio.h>

typedef int entry_fn(int);

__attribute__((noinline)) int host_run(const char *plugin, const char *entry)
{
	void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return -1;
	}
	entry_fn *f = (entry_fn *)dlsym(h, entry);
	int r = f != NULL ? f(20) : -1;
	dlclose(h);
	return r;
}
