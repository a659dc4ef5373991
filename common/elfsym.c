/* elfsym.c -- ELF decoding shared by every program (elfsym.h). */
#include "elfsym.h"

#include <elf.h>
#include <string.h>

static uint16_t get16(const struct ctrace_elf *e, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return e->swap ? __builtin_bswap16(v) : v;
}

static uint32_t get32(const struct ctrace_elf *e, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return e->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct ctrace_elf *e, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return e->swap ? __builtin_bswap64(v) : v;
}

/* An address-sized field: 4 bytes in ELF32, 8 in ELF64. */
static uint64_t get_word(const struct ctrace_elf *e, const unsigned char *p)
{
	return e->is64 ? get64(e, p) : get32(e, p);
}

#define FIELD(type32, type64, field)                                          \
	(e->is64 ? offsetof(type64, field) : offsetof(type32, field))

int ctrace__elf_header(const void *bytes, size_t n, struct ctrace_elf *e)
{
	const unsigned char *h = bytes;
	static const unsigned char native =
		__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
							  : ELFDATA2MSB;

	memset(e, 0, sizeof *e);
	if (n < EI_NIDENT || memcmp(h, ELFMAG, SELFMAG) != 0 ||
	    (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64) ||
	    (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
		return -1;
	e->is64 = h[EI_CLASS] == ELFCLASS64;
	e->swap = h[EI_DATA] != native;
	if (n < (e->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return -1;
	e->type = get16(e, h + FIELD(Elf32_Ehdr, Elf64_Ehdr, e_type));
	e->machine = get16(e, h + FIELD(Elf32_Ehdr, Elf64_Ehdr, e_machine));
	e->shoff = get_word(e, h + FIELD(Elf32_Ehdr, Elf64_Ehdr, e_shoff));
	e->shnum = get16(e, h + FIELD(Elf32_Ehdr, Elf64_Ehdr, e_shnum));
	e->shentsize =
		get16(e, h + FIELD(Elf32_Ehdr, Elf64_Ehdr, e_shentsize));
	return 0;
}

size_t ctrace__elf_shdr_size(const struct ctrace_elf *e)
{
	return e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
}

size_t ctrace__elf_sym_size(const struct ctrace_elf *e)
{
	return e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
}

void ctrace__elf_section(const struct ctrace_elf *e, const void *bytes,
			 struct ctrace_elf_section *s)
{
	const unsigned char *p = bytes;
	s->type = get32(e, p + FIELD(Elf32_Shdr, Elf64_Shdr, sh_type));
	s->link = get32(e, p + FIELD(Elf32_Shdr, Elf64_Shdr, sh_link));
	s->offset = get_word(e, p + FIELD(Elf32_Shdr, Elf64_Shdr, sh_offset));
	s->size = s->type == SHT_NOBITS
			  ? 0
			  : get_word(e, p + FIELD(Elf32_Shdr, Elf64_Shdr,
						  sh_size));
	s->entsize =
		get_word(e, p + FIELD(Elf32_Shdr, Elf64_Shdr, sh_entsize));
}

void ctrace__elf_symbol(const struct ctrace_elf *e, const void *bytes,
			struct ctrace_elf_symbol *s)
{
	const unsigned char *p = bytes;
	unsigned char info = p[FIELD(Elf32_Sym, Elf64_Sym, st_info)];
	s->name = get32(e, p + FIELD(Elf32_Sym, Elf64_Sym, st_name));
	s->value = get_word(e, p + FIELD(Elf32_Sym, Elf64_Sym, st_value));
	s->size = get_word(e, p + FIELD(Elf32_Sym, Elf64_Sym, st_size));
	s->shndx = get16(e, p + FIELD(Elf32_Sym, Elf64_Sym, st_shndx));
	s->type = ELF64_ST_TYPE(info);
	s->bind = ELF64_ST_BIND(info);
}

int ctrace__elf_defined(const struct ctrace_elf_symbol *s)
{
	return s->shndx != SHN_UNDEF && s->shndx != SHN_ABS;
}

int ctrace__elf_function(const struct ctrace_elf_symbol *s)
{
	return (s->type == STT_FUNC || s->type == STT_GNU_IFUNC) &&
	       ctrace__elf_defined(s);
}

/* Note headers are three 4-byte words in both classes; name and
 * descriptor are padded to 4 bytes. */
size_t ctrace__elf_build_id(const void *bytes, size_t n, uint8_t *id,
			    size_t max)
{
	const unsigned char *notes = bytes;
	uint64_t off = 0;

	while (n - off >= 12) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		uint64_t name_off = off + 12;
		uint64_t desc_off = name_off + (((uint64_t)namesz + 3) & ~3u);
		uint64_t next = desc_off + (((uint64_t)descsz + 3) & ~3u);
		if (next > n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(notes + name_off, "GNU", 4) == 0 && descsz > 0 &&
		    descsz <= max) {
			memcpy(id, notes + desc_off, descsz);
			return descsz;
		}
		off = next;
	}
	return 0;
}
