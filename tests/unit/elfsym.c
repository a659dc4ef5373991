/* elfsym.c -- ELF headers, sections, symbols and build-id notes decoded
 * by common/elfsym.c (the recorder's filters, the symbolizer's symbol
 * tables and the launcher's probe all read through it): both classes,
 * both byte orders, against headers built here with <elf.h>'s structs,
 * and against this program's own file. */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "tap.h"

#define SW16(v, sw) ((sw) ? __builtin_bswap16(v) : (v))
#define SW32(v, sw) ((sw) ? __builtin_bswap32(v) : (v))
#define SW64(v, sw) ((sw) ? __builtin_bswap64(v) : (v))

static const unsigned char native =
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

static void test_class(int is64, int swap)
{
	const char *what = is64 ? (swap ? "ELF64, other byte order" : "ELF64")
				: (swap ? "ELF32, other byte order" : "ELF32");
	unsigned char h[64] = {0}, sh[64] = {0}, sym[24] = {0};
	struct ctrace_elf e;
	struct ctrace_elf_section s;
	struct ctrace_elf_symbol y;
	unsigned char data = native == ELFDATA2LSB
				     ? (swap ? ELFDATA2MSB : ELFDATA2LSB)
				     : (swap ? ELFDATA2LSB : ELFDATA2MSB);

	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	h[EI_DATA] = data;
	if (is64) {
		Elf64_Ehdr eh;
		memcpy(&eh, h, sizeof eh);
		eh.e_type = SW16(ET_DYN, swap);
		eh.e_machine = SW16(EM_X86_64, swap);
		eh.e_shoff = SW64(0x123456789ull, swap);
		eh.e_shnum = SW16(31, swap);
		eh.e_shentsize = SW16(sizeof(Elf64_Shdr), swap);
		memcpy(h, &eh, sizeof eh);
		Elf64_Shdr s64 = {0};
		s64.sh_type = SW32(SHT_SYMTAB, swap);
		s64.sh_link = SW32(7, swap);
		s64.sh_offset = SW64(0x1000, swap);
		s64.sh_size = SW64(0x240, swap);
		s64.sh_entsize = SW64(24, swap);
		memcpy(sh, &s64, sizeof s64);
		Elf64_Sym y64 = {0};
		y64.st_name = SW32(17, swap);
		y64.st_value = SW64(0x401126, swap);
		y64.st_size = SW64(42, swap);
		y64.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		y64.st_shndx = SW16(14, swap);
		memcpy(sym, &y64, sizeof y64);
	} else {
		Elf32_Ehdr eh;
		memcpy(&eh, h, sizeof eh);
		eh.e_type = SW16(ET_EXEC, swap);
		eh.e_machine = SW16(EM_386, swap);
		eh.e_shoff = SW32(0x12345, swap);
		eh.e_shnum = SW16(31, swap);
		eh.e_shentsize = SW16(sizeof(Elf32_Shdr), swap);
		memcpy(h, &eh, sizeof eh);
		Elf32_Shdr s32 = {0};
		s32.sh_type = SW32(SHT_SYMTAB, swap);
		s32.sh_link = SW32(7, swap);
		s32.sh_offset = SW32(0x1000, swap);
		s32.sh_size = SW32(0x240, swap);
		s32.sh_entsize = SW32(16, swap);
		memcpy(sh, &s32, sizeof s32);
		Elf32_Sym y32 = {0};
		y32.st_name = SW32(17, swap);
		y32.st_value = SW32(0x401126, swap);
		y32.st_size = SW32(42, swap);
		y32.st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC);
		y32.st_shndx = SW16(14, swap);
		memcpy(sym, &y32, sizeof y32);
	}
	size_t hsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	int r = ctrace__elf_header(h, hsize, &e);
	tap_ok(r == 0 && e.is64 == is64 && e.swap == swap &&
		       e.type == (is64 ? ET_DYN : ET_EXEC) &&
		       e.machine == (is64 ? EM_X86_64 : EM_386) &&
		       e.shoff == (is64 ? 0x123456789ull : 0x12345) &&
		       e.shnum == 31 && e.shentsize == ctrace__elf_shdr_size(&e),
	       "%s: header", what);
	tap_ok(ctrace__elf_header(h, hsize - 1, &e) < 0,
	       "%s: a header cut short is refused", what);
	ctrace__elf_header(h, hsize, &e);
	ctrace__elf_section(&e, sh, &s);
	tap_ok(s.type == SHT_SYMTAB && s.link == 7 && s.offset == 0x1000 &&
		       s.size == 0x240 &&
		       s.entsize == ctrace__elf_sym_size(&e),
	       "%s: section header", what);
	ctrace__elf_symbol(&e, sym, &y);
	tap_ok(y.name == 17 && y.value == 0x401126 && y.size == 42 &&
		       y.shndx == 14 && y.type == STT_FUNC &&
		       y.bind == STB_GLOBAL && ctrace__elf_function(&y),
	       "%s: a defined function symbol", what);
}

static void test_kinds(void)
{
	static const struct {
		uint8_t type;
		uint16_t shndx;
		int function, defined;
	} k[] = {
		{STT_FUNC, 14, 1, 1},	     {STT_GNU_IFUNC, 14, 1, 1},
		{STT_FUNC, SHN_UNDEF, 0, 0}, {STT_FUNC, SHN_ABS, 0, 0},
		{STT_OBJECT, 14, 0, 1},	     {STT_NOTYPE, 3, 0, 1},
	};
	for (int i = 0; i < TAP_COUNT(k); i++) {
		struct ctrace_elf_symbol y = {0};
		y.type = k[i].type;
		y.shndx = k[i].shndx;
		tap_ok(ctrace__elf_function(&y) == k[i].function &&
			       ctrace__elf_defined(&y) == k[i].defined,
		       "symbol of type %u in section %u: function %d, "
		       "defined %d",
		       k[i].type, k[i].shndx, k[i].function, k[i].defined);
	}
	unsigned char h[64] = {0};
	struct ctrace_elf e;
	memcpy(h, "\177ELG", 4);
	tap_ok(ctrace__elf_header(h, sizeof h, &e) < 0,
	       "not an ELF file: refused");
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = 3;
	h[EI_DATA] = ELFDATA2LSB;
	tap_ok(ctrace__elf_header(h, sizeof h, &e) < 0,
	       "an unknown class: refused");
	h[EI_CLASS] = ELFCLASS64;
	h[EI_DATA] = 0;
	tap_ok(ctrace__elf_header(h, sizeof h, &e) < 0,
	       "an unknown byte order: refused");
	Elf64_Shdr nobits = {0};
	nobits.sh_type = SHT_NOBITS;
	nobits.sh_size = 4096;
	struct ctrace_elf_section s;
	e = (struct ctrace_elf){.is64 = 1};
	ctrace__elf_section(&e, &nobits, &s);
	tap_ok(s.size == 0, "a NOBITS section has no bytes in the file");
}

/* A note: namesz, descsz, type, name padded to 4, descriptor padded. */
static size_t note(unsigned char *p, const char *name, uint32_t type,
		   const void *desc, uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	memcpy(p, &namesz, 4);
	memcpy(p + 4, &descsz, 4);
	memcpy(p + 8, &type, 4);
	memset(p + 12, 0, 64);
	memcpy(p + 12, name, namesz);
	size_t at = 12 + ((namesz + 3) & ~3u);
	memcpy(p + at, desc, descsz);
	return at + ((descsz + 3) & ~3u);
}

static void test_build_id(void)
{
	unsigned char notes[256], id[64];
	const unsigned char want[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	size_t n = note(notes, "GNU", NT_GNU_ABI_TAG, "\0\0\0\0\3\0\0\0", 8);
	n += note(notes + n, "GNUX", NT_GNU_BUILD_ID, want, 20);
	n += note(notes + n, "GNU", NT_GNU_BUILD_ID, want, 20);
	tap_ok(ctrace__elf_build_id(notes, n, id, sizeof id) == 20 &&
		       !memcmp(id, want, 20),
	       "build-id: found after other notes");
	tap_ok(ctrace__elf_build_id(notes, n, id, 19) == 0,
	       "build-id: longer than asked for is none");
	tap_ok(ctrace__elf_build_id(notes, n - 1, id, sizeof id) == 0,
	       "build-id: a note cut short is none");
	tap_ok(ctrace__elf_build_id(notes, 11, id, sizeof id) == 0,
	       "build-id: no room for a note header");
}

/* This program's own file: main is a defined function of .symtab. */
static void test_self(void)
{
	int found = 0;
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	unsigned char *f = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && (f = malloc(st.st_size)) &&
	    read(fd, f, st.st_size) == st.st_size) {
		struct ctrace_elf e;
		if (ctrace__elf_header(f, st.st_size, &e) == 0)
			for (uint64_t i = 0; i < e.shnum; i++) {
				struct ctrace_elf_section s, str;
				ctrace__elf_section(&e, f + e.shoff + i * e.shentsize,
						    &s);
				if (s.type != SHT_SYMTAB)
					continue;
				ctrace__elf_section(
					&e, f + e.shoff + s.link * e.shentsize,
					&str);
				for (uint64_t k = 0;
				     k < s.size / ctrace__elf_sym_size(&e); k++) {
					struct ctrace_elf_symbol y;
					ctrace__elf_symbol(
						&e,
						f + s.offset +
							k * ctrace__elf_sym_size(&e),
						&y);
					if (ctrace__elf_function(&y) &&
					    y.size > 0 &&
					    !strcmp((char *)f + str.offset + y.name,
						    "main"))
						found = 1;
				}
			}
	}
	free(f);
	if (fd >= 0)
		close(fd);
	tap_ok(found, "this program's main, a function of its .symtab");
}

int main(void)
{
	tap_plan(4 * 4 + 6 + 4 + 4 + 1);
	test_class(1, 0);
	test_class(1, 1);
	test_class(0, 0);
	test_class(0, 1);
	test_kinds();
	test_build_id();
	test_self();
	return tap_done();
}
