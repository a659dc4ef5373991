/* elfprobe.c -- find a symbol definition in an ELF file, ELF32 or ELF64,
 * either byte order.
 *
 * The file is untrusted: it may be truncated, damaged or not ELF at all.
 * common/elfsym.c decodes the headers and symbols read here.
 * Every offset and size read from it is checked against the file's size
 * before use, and nothing is mapped, so a file that shrinks while it is
 * read cannot fault either.  A part that cannot be read counts as absent.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfprobe.h"
#include "elfsym.h"

/* Symbols are read this many at a time. */
#define SYMBOLS_PER_READ 1024

/* The file being read; common/elfsym.c decodes what is read from it. */
struct reader {
	int fd;
	uint64_t size;	/* of the file */
	struct ctrace_elf elf;
};

/* ---------------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------------ */

/* Reads exactly LEN bytes at OFF, which must lie within the file.
 * Returns 0 or -1. */
static int read_at(const struct reader *r, uint64_t off, void *buf, size_t len)
{
	if (off > r->size || len > r->size - off)
		return -1;
	unsigned char *p = buf;
	while (len > 0) {
		ssize_t n = pread(r->fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * Section headers
 * ------------------------------------------------------------------------ */

/* Reads section header INDEX of the table at SHOFF.  Returns 0 or -1. */
static int read_section(const struct reader *r, uint64_t shoff,
			uint64_t shentsize, uint64_t index,
			struct ctrace_elf_section *s)
{
	unsigned char buf[sizeof(Elf64_Shdr)];
	size_t len = ctrace__elf_shdr_size(&r->elf);

	if (index > (r->size - shoff) / shentsize ||
	    read_at(r, shoff + index * shentsize, buf, len) < 0)
		return -1;
	ctrace__elf_section(&r->elf, buf, s);
	return 0;
}

/* ---------------------------------------------------------------------------
 * Symbol tables
 * ------------------------------------------------------------------------ */

/* Whether the symbol table SYMTAB, whose names are in the string table
 * STRTAB, defines NAME.  Returns 1 or 0; sets *DAMAGED when a table runs
 * past the end of the file. */
static int table_defines(const struct reader *r, const struct ctrace_elf_section *symtab,
			 const struct ctrace_elf_section *strtab, const char *name,
			 int *damaged)
{
	size_t sym_len = ctrace__elf_sym_size(&r->elf);
	size_t name_len = strlen(name);
	uint64_t stride = symtab->entsize;
	int found = 0;

	if (stride < sym_len || stride > 4096)
		stride = sym_len;
	if (strtab->type != SHT_STRTAB)
		return 0;
	if (strtab->offset > r->size || strtab->size > r->size - strtab->offset ||
	    symtab->offset > r->size || symtab->size > r->size - symtab->offset)
		*damaged = 1;
	if (strtab->offset > r->size || strtab->size > r->size - strtab->offset ||
	    strtab->size > SIZE_MAX)
		return 0;

	char *strings = malloc(strtab->size + 1);
	unsigned char *syms = malloc(SYMBOLS_PER_READ * stride);
	if (strings == NULL || syms == NULL ||
	    read_at(r, strtab->offset, strings, strtab->size) < 0)
		goto out;
	strings[strtab->size] = '\0'; /* a last name left open ends here */

	/* A symbol table running past the end of the file is read as far
	 * as it goes. */
	if (symtab->offset > r->size)
		goto out;
	uint64_t count = symtab->size / stride;
	if (count > (r->size - symtab->offset) / stride)
		count = (r->size - symtab->offset) / stride;
	for (uint64_t first = 0; first < count && !found;
	     first += SYMBOLS_PER_READ) {
		uint64_t n = count - first;
		if (n > SYMBOLS_PER_READ)
			n = SYMBOLS_PER_READ;
		if (read_at(r, symtab->offset + first * stride, syms,
			    n * stride) < 0)
			break;
		for (uint64_t i = 0; i < n && !found; i++) {
			struct ctrace_elf_symbol sym;
			ctrace__elf_symbol(&r->elf, syms + i * stride, &sym);
			uint32_t off = sym.name;
			found = sym.shndx != SHN_UNDEF && off < strtab->size &&
				strtab->size - off >= name_len &&
				memcmp(strings + off, name, name_len + 1) == 0;
		}
	}
out:
	free(syms);
	free(strings);
	return found;
}

/* Looks through every SHT_SYMTAB and SHT_DYNSYM section. */
static void probe_sections(const struct reader *r, const char *name,
			   struct elfprobe *out)
{
	uint64_t shoff = r->elf.shoff;
	uint64_t shentsize = r->elf.shentsize;
	uint64_t shnum = r->elf.shnum;
	struct ctrace_elf_section s, strtab;

	if (shoff == 0)
		return; /* no section headers: nothing to look at */
	if (shoff >= r->size || shentsize < ctrace__elf_shdr_size(&r->elf)) {
		out->damaged = 1;
		return;
	}
	/* With 0xff00 sections or more, the count is in section 0. */
	if (shnum == 0 && read_section(r, shoff, shentsize, 0, &s) == 0)
		shnum = s.size;
	/* A count beyond the end of the file is damage: read what is
	 * there. */
	if (shnum > (r->size - shoff) / shentsize) {
		shnum = (r->size - shoff) / shentsize;
		out->damaged = 1;
	}

	for (uint64_t i = 1; i < shnum && !out->defines_symbol; i++) {
		if (read_section(r, shoff, shentsize, i, &s) < 0)
			break;
		if (s.type != SHT_SYMTAB && s.type != SHT_DYNSYM)
			continue;
		if (s.link == 0 || s.link >= shnum ||
		    read_section(r, shoff, shentsize, s.link, &strtab) < 0)
			continue;
		if (s.type == SHT_SYMTAB)
			out->has_symtab = 1;
		out->defines_symbol =
			table_defines(r, &s, &strtab, name, &out->damaged);
	}
}

/* ---------------------------------------------------------------------------
 * Public entry
 * ------------------------------------------------------------------------ */

int elfprobe_file(const char *path, const char *name, struct elfprobe *out)
{
	unsigned char ehdr[sizeof(Elf64_Ehdr)] = {0};
	struct reader rd = {0}, *r = &rd;
	struct stat st;

	memset(out, 0, sizeof *out);
	out->kind = ELFPROBE_OTHER;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (fstat(r->fd, &st) < 0) {
		int err = -errno;
		close(r->fd);
		return err;
	}
	r->size = (uint64_t)st.st_size;

	ssize_t n;
	do
		n = pread(r->fd, ehdr, sizeof ehdr, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;
		close(r->fd);
		return err;
	}

	if (n >= 2 && ehdr[0] == '#' && ehdr[1] == '!') {
		out->kind = ELFPROBE_SCRIPT;
	} else if (n >= EI_NIDENT && memcmp(ehdr, ELFMAG, SELFMAG) == 0) {
		out->kind = ELFPROBE_ELF_OTHER;
		if (ctrace__elf_header(ehdr, (size_t)n, &r->elf) == 0) {
			if (r->elf.type == ET_EXEC || r->elf.type == ET_DYN)
				out->kind = ELFPROBE_ELF;
			probe_sections(r, name, out);
		}
	}
	close(r->fd);
	return 0;
}
