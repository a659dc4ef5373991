/* fixture.h -- how the resolver's test fixtures record what they expect.
 *
 * A fixture is a program (or a shared library) whose functions know their
 * own names and lines.  When it runs it prints, on stdout, one line per
 * fact the resolver must reproduce, fields separated by tabs:
 *
 *   module PATH BIAS START END BUILD_ID
 *   func   ADDR NAME FULL_NAME EXPORTED FILE FIRST_LINE LAST_LINE
 *   site   RET CALLER CALLER_FULL EXPORTED FILE LINE INNER OUTER OUTER_LINE
 *
 * `func` is a function entry: NAME (demangled, no parameters) is expected
 * at ADDR, with a source line between FIRST_LINE and LAST_LINE.  `site` is
 * a call: RET its return address, CALLER the function (symbol) containing
 * the call, LINE the line of the call in function INNER; when INNER was
 * inlined, OUTER and OUTER_LINE say where (else "-" and 0).  EXPORTED says
 * whether the symbol is in .dynsym (stripped objects keep only those).
 * The module line describes the object holding the fixture's functions.
 *
 * Usable from C and C++; everything is static, one fixture per object.
 */
#ifndef CTRACE_TESTS_FIXTURE_H
#define CTRACE_TESTS_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
/* noipa: no clones, no assumptions across the call, so that each call
 * site stays a real call to the named function. */
#define NOINLINE __attribute__((noipa))
#endif
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* ---------------------------------------------------------------------------
 * Expected facts
 * ------------------------------------------------------------------------ */

struct fixture_site {
	void *ret;
	const char *caller, *caller_full;
	int exported;
	int line;
	const char *inner;
	const char *outer;
	int outer_line;
};

#define FIXTURE_MAX_SITES 64
static struct fixture_site fixture_sites[FIXTURE_MAX_SITES];

/* Evaluates to slot i after noting that the call on this line, in the
 * function CALLER, is expected there.  Use as the argument of the call:
 *   record(SITE(3, "outer", "outer(int)", 1, "outer"));
 * INNER is the function whose body holds the line (CALLER unless the line
 * is in an inlined function). */
#define SITE(i, caller_, full_, exported_, inner_)                         \
	(fixture_sites[i].caller = (caller_),                              \
	 fixture_sites[i].caller_full = (full_),                           \
	 fixture_sites[i].exported = (exported_),                          \
	 fixture_sites[i].inner = (inner_), fixture_sites[i].line = __LINE__, \
	 (i))

/* For a call inside an inlined function: where that function was inlined.
 * Wraps the slot number passed down to the inline function. */
#define INLINED_AT(i, outer_)                                               \
	(fixture_sites[i].outer = (outer_),                                  \
	 fixture_sites[i].outer_line = __LINE__, (i))

/* Called by the functions the sites call: their return address is the
 * call site. */
#define RECORD_RETURN(i) (fixture_sites[i].ret = __builtin_return_address(0))

/* ---------------------------------------------------------------------------
 * Printing
 * ------------------------------------------------------------------------ */

struct fixture_module {
	const void *probe;
	int found;
};

static int fixture_phdr(struct dl_phdr_info *info, size_t size, void *data)
{
	struct fixture_module *fm = (struct fixture_module *)data;
	uintptr_t probe = (uintptr_t)fm->probe;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const unsigned char *id = NULL;
	size_t id_len = 0;
	char exe[4096];
	const char *path = info->dlpi_name;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD) {
			if (start < lo)
				lo = start;
			if (start + ph->p_memsz > hi)
				hi = start + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE) {
			const unsigned char *p = (const unsigned char *)start;
			const unsigned char *end = p + ph->p_memsz;
			while (p + 12 <= end && id == NULL) {
				const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
				const unsigned char *name = p + 12;
				const unsigned char *desc =
					name + ((nh->n_namesz + 3) & ~3u);
				if (nh->n_type == NT_GNU_BUILD_ID &&
				    nh->n_namesz == 4 &&
				    memcmp(name, "GNU", 4) == 0) {
					id = desc;
					id_len = nh->n_descsz;
				}
				p = desc + ((nh->n_descsz + 3) & ~3u);
			}
		}
	}
	if (probe < lo || probe >= hi)
		return 0;
	if (path == NULL || path[0] == '\0') {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		path = exe;
	}
	printf("module\t%s\t%#lx\t%#lx\t%#lx\t", path,
	       (unsigned long)info->dlpi_addr, (unsigned long)lo,
	       (unsigned long)hi);
	for (i = 0; i < (int)id_len; i++)
		printf("%02x", id[i]);
	printf("%s\n", id_len ? "" : "-");
	fm->found = 1;
	return 1;
}

/* Prints the module line for the object that holds `probe`. */
static void fixture_print_module(const void *probe)
{
	struct fixture_module fm = {probe, 0};
	dl_iterate_phdr(fixture_phdr, &fm);
	if (!fm.found)
		printf("module\t?\t0\t0\t0\t-\n");
}

/* `file` is the fixture's __FILE__: the source the lines are in. */
static void fixture_print_func(const void *addr, const char *name,
			       const char *full, int exported,
			       const char *file, int first, int last)
{
	printf("func\t%p\t%s\t%s\t%d\t%s\t%d\t%d\n", addr, name, full,
	       exported, file, first, last);
}

static void fixture_print_sites(const char *file)
{
	int i;

	for (i = 0; i < FIXTURE_MAX_SITES; i++) {
		const struct fixture_site *s = &fixture_sites[i];
		if (s->ret == NULL)
			continue;
		printf("site\t%p\t%s\t%s\t%d\t%s\t%d\t%s\t%s\t%d\n", s->ret,
		       s->caller, s->caller_full, s->exported, file,
		       s->line, s->inner, s->outer ? s->outer : "-",
		       s->outer_line);
	}
}

#endif /* CTRACE_TESTS_FIXTURE_H */
