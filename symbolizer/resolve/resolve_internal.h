/* resolve_internal.h -- what the files of the resolver share.
 *
 *   resolve.c    the interface: modules, the cache, names
 *   debuginfo.c  libbfd: opening modules, separate debug files, DWARF
 *                lookups, libbfd's messages
 *   elfinfo.c    function symbols with sizes and build-ids, read directly
 *   debugfile.c  a separate debug file whose compressed sections libbfd
 *                and libdw share, inflated once (debugfile.h)
 *   strmap.c     interned strings, and display names (demangling)
 *
 * Include config.h (for PACKAGE, which bfd.h insists on) before this.
 */
#ifndef CTRACE_RESOLVE_INTERNAL_H
#define CTRACE_RESOLVE_INTERNAL_H

#include <bfd.h>
#include <libiberty/demangle.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve/elfinfo.h"
#include "util/pool.h"
#include "resolve/resolve.h"

struct module {
	char *path;        /* as recorded */
	const char *label; /* base name, for "label+0xoffset" */
	uint64_t bias;     /* runtime address minus link-time address */
	uint64_t start, end;
	uint8_t build_id[ELFINFO_BUILD_ID_MAX];
	size_t build_id_len;
	uint64_t loaded, unloaded; /* ticks; unloaded UINT64_MAX if never */
	size_t serial;             /* declaration order: ties go to the later */
	int state;                 /* enum module_state (resolve.c) */

	/* Filled in when the module is first needed: */
	char *file; /* the file read: path, or found in a search dir */
	struct elf_functions funcs;
	bfd *abfd;            /* the module's file */
	bfd *dwarf;           /* where its DWARF is: abfd, debug_file, NULL */
	asymbol **dwarf_syms; /* symbols of `dwarf`, for libbfd */
	char *debug_file;     /* separate debug file, NULL if none used */
};

/* resolve.c */
void resolve_report(struct resolver *r, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void resolve_report_bfd(struct resolver *r, const char *msg);
const char *const *resolve_search_dirs(const struct resolver *r, size_t *n);
const char *const *resolve_debug_dirs(const struct resolver *r, size_t *n);

/* debuginfo.c */
struct debug_frame {
	const char *function; /* raw (mangled) name, NULL if unknown */
	const char *file;
	unsigned line;
};

int debuginfo_init(struct resolver *r);
void debuginfo_exit(struct resolver *r);
/* Opens m->file with libbfd and finds its DWARF (m->dwarf may stay NULL). */
void debuginfo_open(struct resolver *r, struct module *m);
void debuginfo_close(struct module *m);
/* Adds the module's PLT entries ("atoi" for atoi@plt) to m->funcs: in a
 * non-PIE program, the address of a library function taken in the program
 * is its PLT entry. */
void debuginfo_add_plt(struct module *m);
/* The source location of link-time address pc, innermost inline frame
 * first.  Returns the number of frames stored (0: none known). */
size_t debuginfo_lookup(struct resolver *r, struct module *m, uint64_t pc,
			struct debug_frame *out, size_t max);
/* dir/name in a new string, NULL when out of memory. */
char *debuginfo_path_join(const char *dir, const char *name);

/* strmap.c: a map from strings to strings, both copied into the map, and
 * the display names kept in such maps.  A zeroed map is empty. */
struct str_map {
	struct pool entries;
	struct id_table ids;
	struct str_arena strings;
};

uint64_t strmap_hash(const char *s);
const char *strmap_find(const struct str_map *m, const char *key,
			uint64_t hash);
/* Adds key (not in the map yet; `hash` its strmap_hash) mapped to value, or
 * to itself when value is NULL or equal.  Returns the value as stored,
 * or NULL when out of memory. */
const char *strmap_add(struct str_map *m, const char *key,
		       const char *value, uint64_t hash);
void strmap_free(struct str_map *m);

/* The display name of a raw (possibly mangled) symbol in `mode`, interned
 * in `names`.  NULL only when out of memory. */
const char *strmap_display(struct str_map *names, enum resolve_demangle mode,
			   const char *raw);
/* s, interned in `set`.  NULL only when out of memory. */
const char *strmap_intern(struct str_map *set, const char *s);

#endif /* CTRACE_RESOLVE_INTERNAL_H */
