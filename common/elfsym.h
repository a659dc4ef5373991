/* elfsym.h -- decoding ELF headers, section headers, symbols and build-id
 * notes, for every program that reads ELF files itself: the recorder (its
 * record-time filters read the loaded objects' symbol tables, and it
 * records their build-ids), the symbolizer (function symbols with sizes,
 * build-ids) and the launcher (does the program link the recorder?).
 *
 * Decoding only: each program brings the bytes its own way (the recorder
 * maps the file, the symbolizer and the launcher read it with pread, for
 * a file that shrinks while it is read cannot fault them), and checks
 * that what it hands over lies within the file.  Both classes, both byte
 * orders.  No allocation, libc only.
 */
#ifndef CTRACE_COMMON_ELFSYM_H
#define CTRACE_COMMON_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

/* Bytes to read from offset 0 for ctrace__elf_header: the larger ELF
 * header (64-bit). */
#define CTRACE_ELF_HEADER_MAX 64

/* What the ELF header says, whatever the class. */
struct ctrace_elf {
	int is64;
	int swap; /* the file's byte order is not this machine's */
	uint16_t type, machine;
	uint64_t shoff;     /* 0: no section headers */
	uint64_t shnum;     /* 0 with shoff: the count is in section 0 */
	uint64_t shentsize;
};

struct ctrace_elf_section {
	uint32_t type, link;
	uint64_t offset, size, entsize;
};

struct ctrace_elf_symbol {
	uint64_t value, size;
	uint32_t name; /* offset in the linked string table */
	uint16_t shndx;
	uint8_t type, bind;
};

/* Decodes the ELF header in the first n bytes of a file.  Returns 0, or -1
 * when they are not the header of an ELF file of a known class and byte
 * order (n too small included). */
CTRACE_COMMON_API int ctrace__elf_header(const void *bytes, size_t n,
					 struct ctrace_elf *e);

/* The size of one section header and of one symbol in this file. */
CTRACE_COMMON_API size_t ctrace__elf_shdr_size(const struct ctrace_elf *e);
CTRACE_COMMON_API size_t ctrace__elf_sym_size(const struct ctrace_elf *e);

/* Decodes one section header (ctrace__elf_shdr_size bytes).  A NOBITS
 * section's size reads as 0: it has no bytes in the file. */
CTRACE_COMMON_API void ctrace__elf_section(const struct ctrace_elf *e,
					   const void *bytes,
					   struct ctrace_elf_section *s);

/* Decodes one symbol (ctrace__elf_sym_size bytes). */
CTRACE_COMMON_API void ctrace__elf_symbol(const struct ctrace_elf *e,
					  const void *bytes,
					  struct ctrace_elf_symbol *s);

/* Whether a symbol is defined here (in a section, not undefined, not
 * absolute). */
CTRACE_COMMON_API int ctrace__elf_defined(const struct ctrace_elf_symbol *s);

/* Whether it is a function defined here: STT_FUNC or STT_GNU_IFUNC. */
CTRACE_COMMON_API int ctrace__elf_function(const struct ctrace_elf_symbol *s);

/* The NT_GNU_BUILD_ID note among the notes [bytes, bytes + n) of a PT_NOTE
 * segment or SHT_NOTE section in this machine's byte order: copies its
 * descriptor to id and returns its length, or returns 0 when there is
 * none, or one longer than max. */
CTRACE_COMMON_API size_t ctrace__elf_build_id(const void *bytes, size_t n,
					      uint8_t *id, size_t max);

#endif /* CTRACE_COMMON_ELFSYM_H */
