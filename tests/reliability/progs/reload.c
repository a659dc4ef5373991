/* reload.c -- dlopen and dlclose of instrumented libraries:
 *
 *   reload twice LIB      LIB loaded, called, unloaded; then loaded again
 *                         at another address (the old one is taken) and
 *                         called again
 *   reload swap LIB1 LIB2 LIB1 loaded, called, unloaded; LIB2 loaded (at the
 *                         same address, as a rule) and called through the
 *                         same call site
 *   reload direct LIB1 LIB2    LIB1 loaded, called, unloaded; LIB2 loaded
 *                         and called with no instrumented call between
 *                         the unload and the load: the recorder sees both
 *                         changes at one look
 *   reload inplace LIB1 LIB2   the same as swap, each library loaded, called and
 *                         unloaded by one function with no other call in
 *                         between: its entry is the last event before the
 *                         load
 * Prints the address of each library's entry function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define NOINLINE __attribute__((noinline))

typedef int entry_fn(int);

NOINLINE static int call_plugin(entry_fn *f)
{
	return f(1);
}

/* Loads LIB, calls its entry once; returns the handle. */
NOINLINE static void *load_and_call(const char *lib, const char *entry)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return NULL;
	}
	entry_fn *f = (entry_fn *)dlsym(h, entry);
	printf("%s %p\n", entry, (void *)f);
	call_plugin(f);
	return h;
}

/* Loads LIB, calls its entry with no instrumented call before, unloads
 * it. */
NOINLINE static int load_call_unload(const char *lib, const char *entry)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return -1;
	}
	entry_fn *f = (entry_fn *)dlsym(h, entry);
	int r = f(1);
	printf("%s %p\n", entry, (void *)f);
	dlclose(h);
	return r;
}

/* The address range of the object holding `addr`. */
static void range_of(void *h, void **start, size_t *len)
{
	struct link_map *lm;
	dlinfo(h, RTLD_DI_LINKMAP, &lm);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)lm->l_addr;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(lm->l_addr + eh->e_phoff);
	uintptr_t hi = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	*start = (void *)lm->l_addr;
	*len = (hi + 4095) & ~(uintptr_t)4095;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "twice")) {
		void *h = load_and_call(argv[2], "alpha_entry"), *start;
		size_t len;
		if (h == NULL)
			return 1;
		range_of(h, &start, &len);
		dlclose(h);
		/* Take the old place, so the second load goes elsewhere. */
		mmap(start, len, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		h = load_and_call(argv[2], "alpha_entry");
		if (h == NULL)
			return 1;
		dlclose(h);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "swap")) {
		void *h = load_and_call(argv[2], "alpha_entry");
		if (h == NULL)
			return 1;
		dlclose(h);
		h = load_and_call(argv[3], "beta_entry");
		if (h == NULL)
			return 1;
		dlclose(h);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "direct")) {
		void *h = load_and_call(argv[2], "alpha_entry");
		if (h == NULL)
			return 1;
		dlclose(h);
		h = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
		if (h == NULL) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		entry_fn *f = (entry_fn *)dlsym(h, "beta_entry");
		printf("beta_entry %p\n", (void *)f);
		call_plugin(f);
		dlclose(h);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "inplace")) {
		if (load_call_unload(argv[2], "alpha_entry") < 0 ||
		    load_call_unload(argv[3], "beta_entry") < 0)
			return 1;
		return 0;
	}
	fprintf(stderr, "usage: reload twice LIB | reload swap LIB1 LIB2 | "
			"reload direct LIB1 LIB2 | reload inplace LIB1 LIB2\n");
	return 2;
}
