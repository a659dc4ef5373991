/* debugfile.h -- a separate debug file opened once for both readers of
 * its DWARF: libdw (values/dwinfo.c) and libbfd (debuginfo.c).
 *
 * The sections of a debug file are often compressed (SHF_COMPRESSED, as
 * those of the C library's): each reader inflated them for itself, the
 * same bytes twice.  Both read one libelf descriptor now, whose sections
 * libelf inflates in place the first time either reader needs them:
 * libdw reads the descriptor, libbfd a view of the file (debugfile_pread)
 * in which each compressed section is its inflated bytes, past the end
 * of the file, and the section headers say so.
 */
#ifndef CTRACE_RESOLVE_DEBUGFILE_H
#define CTRACE_RESOLVE_DEBUGFILE_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct debug_file;

/* The regular ELF file at path, of this host's byte order, with at least
 * one compressed section, opened or found open (the same file: device,
 * inode, size and modification time): a reference the caller drops with
 * debugfile_close.  NULL otherwise: the caller reads the file itself. */
struct debug_file *debugfile_open(const char *path);
void debugfile_close(struct debug_file *f);
/* f, with one more reference. */
struct debug_file *debugfile_ref(struct debug_file *f);
/* The descriptor, valid until the last reference is dropped. */
Elf *debugfile_elf(const struct debug_file *f);
/* The view's size, and up to n of its bytes from offset off into buf: how
 * many (fewer at its end), or -1 when a section cannot be inflated. */
uint64_t debugfile_size(const struct debug_file *f);
ssize_t debugfile_pread(struct debug_file *f, void *buf, size_t n,
			uint64_t off);

#endif /* CTRACE_RESOLVE_DEBUGFILE_H */
