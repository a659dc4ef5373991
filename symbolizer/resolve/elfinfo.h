/* elfinfo.h -- what the resolver reads from ELF files without libbfd.
 *
 * libbfd hides two things the resolver needs: the size of each function
 * symbol (to tell "inside f" from "somewhere after f", which matters most
 * for stripped objects where only exported functions keep a symbol) and
 * the build-id note (to compare a file on disk with the one a trace
 * recorded).  Both are a few reads of the section headers away.
 */
#ifndef CTRACE_ELFINFO_H
#define CTRACE_ELFINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFINFO_BUILD_ID_MAX 64

struct elf_function {
	uint64_t addr;    /* link-time address */
	uint64_t size;    /* 0 when the symbol does not say */
	const char *name; /* in elf_functions.strings */
	uint8_t rank;     /* higher wins among symbols at one address */
};

/* The function symbols of one object, sorted by address. */
struct elf_functions {
	struct elf_function *syms;
	size_t n;
	char *strings;
	char *extra_strings; /* names added by elfinfo_add_functions */
	bool from_dynsym; /* no .symtab: only exported functions are known */
};

/* Opens `path` read-only if it is a regular file, never blocking on a FIFO
 * or a device, never reading a file of /proc.  Returns the descriptor, or a
 * negative errno (-EINVAL: not a regular file; -ENOEXEC: empty, as the
 * files of /proc say they are). */
int elfinfo_open_regular(const char *path);

/* Whether the libraries may follow the .gnu_debugaltlink `name` (build-id
 * `id`, id_len bytes) of the object at `path`: libbfd and libdw open the
 * file it names themselves, with a plain open that waits forever on a
 * FIFO.  Looks where they look, in their order (the object's directory,
 * its .debug subdirectory, /usr/lib/debug under the object's directory,
 * /usr/lib/debug/.build-id): returns 0 when the first file that exists is
 * a regular one, or when none exists; -EINVAL when it is anything else,
 * with its path in *bad (malloc'd); -ENOMEM. */
int elfinfo_altlink_check(const char *path, const char *name,
			  const uint8_t *id, size_t id_len, char **bad);

/* Reads the NT_GNU_BUILD_ID note of `path` into id (up to
 * ELFINFO_BUILD_ID_MAX bytes).  Returns the length, 0 when the file has no
 * build-id, or a negative errno (-ENOEXEC: not an ELF file of this
 * machine's byte order). */
int elfinfo_build_id(const char *path, uint8_t *id);

/* Reads the function symbols of `path`: .symtab when there is one, else
 * .dynsym.  Returns 0, -ENOENT when the file has neither table (out is then
 * empty but valid), or another negative errno. */
int elfinfo_functions(const char *path, struct elf_functions *out);

/* The function at `addr` exactly (exact) or containing it.  NULL if none. */
const struct elf_function *elfinfo_lookup(const struct elf_functions *f,
					  uint64_t addr, bool exact);

/* Adds n functions (names copied) found elsewhere, such as the PLT entries
 * libbfd synthesizes, with the lowest rank.  Returns 0 or -ENOMEM. */
int elfinfo_add_functions(struct elf_functions *f,
			  const struct elf_function *add, size_t n);

void elfinfo_functions_free(struct elf_functions *f);

#endif /* CTRACE_ELFINFO_H */
