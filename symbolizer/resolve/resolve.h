/* resolve.h -- addresses to names and source lines (libbfd, libiberty).
 *
 * The resolver knows the modules (ELF objects) a trace recorded, opens each
 * one with libbfd the first time one of its addresses is asked for, and
 * caches every answer: one lookup per distinct address, never per event.
 * Errors and warnings go to the error callback given at creation; nothing
 * here prints.
 */
#ifndef CTRACE_RESOLVE_H
#define CTRACE_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

/* Called for each problem found: msg is a complete sentence fragment
 * without the program name ("./a.out: build-id differs from the trace").
 * errnum is an errno value or 0.  Warnings do not stop the resolver. */
typedef void (*resolve_error_fn)(void *data, const char *msg, int errnum);

enum resolve_demangle {
	RESOLVE_DEMANGLE_NAME = 0, /* ns::Class<int>::method, no parameters */
	RESOLVE_DEMANGLE_FULL = 1, /* ns::Class<int>::method(int, char*) */
	RESOLVE_DEMANGLE_NONE = 2, /* _ZN2ns5ClassIiE6methodEi */
};

struct resolve_options {
	enum resolve_demangle demangle;
	/* Directories searched, in order, for a module whose recorded path
	 * does not exist (by its base name).  May be NULL. */
	const char *const *search_dirs;
	size_t n_search_dirs;
	/* Directories searched, in order, for separate debug files: by
	 * build-id as DIR/.build-id/xx/rest.debug and by the .gnu_debuglink
	 * name as DIR/NAME.  The search dirs are tried next, then the places
	 * gdb uses (next to the module, its .debug/ subdirectory, and
	 * /usr/lib/debug when no debug dirs are given).  May be NULL. */
	const char *const *debug_dirs;
	size_t n_debug_dirs;
};

/* One frame of source location.  For an address in inlined code, the
 * innermost frame comes first and `next` leads outwards to the function
 * the code was inlined into. */
struct resolve_frame {
	const char *function; /* display name, NULL if unknown */
	const char *file;     /* source file, NULL if unknown */
	unsigned line;        /* 0 if unknown */
	const struct resolve_frame *next;
};

struct resolve_info {
	/* Name of the function containing the address; never NULL.  The
	 * ELF symbol (.symtab, the debug file's .symtab, else .dynsym) as
	 * it is, clones like "f.cold" included; else the DWARF function;
	 * finally "module+0xoffset" (module is the base name of the path)
	 * or "0xaddress" when no module covers it.  Equal names are equal
	 * pointers. */
	const char *name;
	/* The ELF symbol as it is (mangled), NULL when none covers the
	 * address. */
	const char *symbol;
	const char *module;       /* module path, NULL if none covers it */
	uint64_t module_offset;   /* address (as passed) minus load bias */
	/* Source location, innermost inline frame first; from DWARF (src
	 * has no file when there is none; its function is then `name` if
	 * a symbol was found). */
	struct resolve_frame src;
};

struct resolver;

/* Returns a new resolver, or NULL when out of memory.  opts may be NULL
 * (defaults); its strings are copied.  libbfd reports its own problems
 * through one process-wide handler, which the resolvers share: use them
 * from one thread. */
struct resolver *resolve_new(const struct resolve_options *opts,
			     resolve_error_fn error, void *data);

/* Declares a module seen at `ticks` (trace clock).  build_id may be NULL.
 * Modules may overlap in time (dlclose then dlopen at the same address):
 * lookups pick the newest module loaded at or before the event's time that
 * covers the address.  Returns 0 or -ENOMEM. */
int resolve_add_module(struct resolver *r, const char *path, uint64_t bias,
		       uint64_t start, uint64_t end, const uint8_t *build_id,
		       size_t build_id_len, uint64_t ticks);

/* Marks the module containing `start` as unloaded at `ticks`. */
void resolve_remove_module(struct resolver *r, uint64_t start,
			   uint64_t ticks);

/* The function at `addr` (a function's entry address, as the hooks see it),
 * for an event at time `ticks`.  Never NULL; the result lives as long as the
 * resolver. */
const struct resolve_info *resolve_function(struct resolver *r, uint64_t addr,
					    uint64_t ticks);

/* The call site whose return address is `ret` (as the hooks see it): the
 * source location is that of the call instruction (ret - 1), and `name`
 * the function making the call.  Never NULL. */
const struct resolve_info *resolve_call_site(struct resolver *r, uint64_t ret,
					     uint64_t ticks);

/* The name of resolve_function's answer (the same interned pointer),
 * without keeping an answer for the address: for a caller that keeps its
 * own name per address, so that the resolver's cache does not hold a
 * second copy.  Lives as long as the resolver. */
const char *resolve_function_name(struct resolver *r, uint64_t addr,
				  uint64_t ticks);

/* A symbol's name as the resolver shows names (demangled as asked),
 * interned: a library call's relocation symbol.  Lives as long as the
 * resolver. */
const char *resolve_display_name(struct resolver *r, const char *raw);

/* The path of the module resolve_function's answer names (its `module`),
 * or NULL; looked up, not cached. */
const char *resolve_function_module(struct resolver *r, uint64_t addr,
				    uint64_t ticks);

/* The separate debug file (found by build-id or .gnu_debuglink) the
 * resolver reads the DWARF of that module from, or NULL when it reads the
 * module's own or none. */
const char *resolve_function_debug_file(struct resolver *r, uint64_t addr,
					uint64_t ticks);

/* Frees the resolver and every result it returned. */
void resolve_free(struct resolver *r);

/* The link-time address of the function symbol `name` defined in the ELF
 * file at `path` (elfinfo.c, without a resolver); 0 if it has none. */
uint64_t elfinfo_function_address(const char *path, const char *name);

#endif /* CTRACE_RESOLVE_H */
