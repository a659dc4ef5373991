/* elfprobe.c -- find a symbol definition in an ELF file, ELF32 or ELF64,
 * either byte order.
 *
 * The file is untrusted: it may be truncated, damaged or not ELF at all.
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

/* Symbols are read this many at a time. */
#define SYMBOLS_PER_READ 1024

struct reader {
	int fd;
	uint64_t size;	/* of the file */
	int is64;
	int swap;	/* the file's byte order is not the host's */
};

struct section {
	uint32_t type;
	uint32_t link;
	uint64_t offset;
	uint64_t size;
	uint64_t entsize;
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

static uint16_t get16(const struct reader *r, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return r->swap ? __builtin_bswap16(v) : v;
}

static uint32_t get32(const struct reader *r, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct reader *r, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return r->swap ? __builtin_bswap64(v) : v;
}

/* An address-sized field: Elf32_Word/Elf32_Off or Elf64_Xword/Elf64_Off. */
static uint64_t get_word(const struct reader *r, const unsigned char *p)
{
	return r->is64 ? get64(r, p) : get32(r, p);
}

/* ---------------------------------------------------------------------------
 * Section headers
 * ------------------------------------------------------------------------ */

#define FIELD(type32, type64, field)                                          \
	(r->is64 ? offsetof(type64, field) : offsetof(type32, field))

/* Reads section header INDEX of the table at SHOFF.  Returns 0 or -1. */
static int read_section(const struct reader *r, uint64_t shoff,
			uint64_t shentsize, uint64_t index, struct section *s)
{
	unsigned char buf[sizeof(Elf64_Shdr)];
	size_t len = r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	if (index > (r->size - shoff) / shentsize ||
	    read_at(r, shoff + index * shentsize, buf, len) < 0)
		return -1;
	s->type = get32(r, buf + FIELD(Elf32_Shdr, Elf64_Shdr, sh_type));
	s->link = get32(r, buf + FIELD(Elf32_Shdr, Elf64_Shdr, sh_link));
	s->offset = get_word(r, buf + FIELD(Elf32_Shdr, Elf64_Shdr, sh_offset));
	s->size = get_word(r, buf + FIELD(Elf32_Shdr, Elf64_Shdr, sh_size));
	s->entsize =
		get_word(r, buf + FIELD(Elf32_Shdr, Elf64_Shdr, sh_entsize));
	return 0;
}

/* ---------------------------------------------------------------------------
 * Symbol tables
 * ------------------------------------------------------------------------ */

/* Whether the symbol table SYMTAB, whose names are in the string table
 * STRTAB, defines NAME.  Returns 1 or 0; sets *DAMAGED when a table runs
 * past the end of the file. */
static int table_defines(const struct reader *r, const struct section *symtab,
			 const struct section *strtab, const char *name,
			 int *damaged)
{
	size_t sym_len = r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
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
			const unsigned char *sym = syms + i * stride;
			uint32_t off = get32(r, sym + FIELD(Elf32_Sym,
							    Elf64_Sym,
							    st_name));
			uint16_t shndx = get16(r, sym + FIELD(Elf32_Sym,
							      Elf64_Sym,
							      st_shndx));
			found = shndx != SHN_UNDEF && off < strtab->size &&
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
static void probe_sections(const struct reader *r, const unsigned char *ehdr,
			   const char *name, struct elfprobe *out)
{
	uint64_t shoff = get_word(r, ehdr + FIELD(Elf32_Ehdr, Elf64_Ehdr,
						  e_shoff));
	uint64_t shentsize = get16(r, ehdr + FIELD(Elf32_Ehdr, Elf64_Ehdr,
						   e_shentsize));
	uint64_t shnum = get16(r, ehdr + FIELD(Elf32_Ehdr, Elf64_Ehdr,
					       e_shnum));
	struct section s, strtab;

	if (shoff == 0)
		return; /* no section headers: nothing to look at */
	if (shoff >= r->size ||
	    shentsize < (r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr))) {
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
		r->is64 = ehdr[EI_CLASS] == ELFCLASS64;
		r->swap = ehdr[EI_DATA] !=
			 (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				  ELFDATA2LSB : ELFDATA2MSB);
		size_t need = r->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
		int known = (ehdr[EI_CLASS] == ELFCLASS32 ||
			     ehdr[EI_CLASS] == ELFCLASS64) &&
			    (ehdr[EI_DATA] == ELFDATA2LSB ||
			     ehdr[EI_DATA] == ELFDATA2MSB) &&
			    (size_t)n >= need;
		if (known) {
			uint16_t type = get16(r, ehdr + FIELD(Elf32_Ehdr,
							       Elf64_Ehdr,
							       e_type));
			if (type == ET_EXEC || type == ET_DYN)
				out->kind = ELFPROBE_ELF;
			probe_sections(r, ehdr, name, out);
		}
	}
	close(r->fd);
	return 0;
}
