/* pltref.c -- which bytes of i386 code plt.c takes for a reference to a
 * GOT slot, and for a call through it (lib/arch/i386/pltarch.h).  A
 * GLOB_DAT slot is redirected only when every reference to it is a call:
 * each row is an instruction as gcc, clang or the linkers lay it out
 * (bytes from objdump), scanned at its displacement as plt.c's
 * only_called scans, with the GOT (_GLOBAL_OFFSET_TABLE_) at 0x1000 and
 * the slot at 0x1008: whether the slot is taken as called, loaded (which
 * wins), or not named; then the sequences that compute the GOT's
 * address, from which PIC code names the slots (mold's is not
 * _GLOBAL_OFFSET_TABLE_). */
#include <stdint.h>
#include <string.h>

#include "arch/i386/pltarch.h"
#include "tap.h"

#define GOT 0x1000u
#define SLOT 0x1008u

static const struct row {
	const char *name;
	uint8_t code[12];
	size_t len, at; /* the displacement's offset */
	int kind;
} rows[] = {
	{"call *slot@GOT(%ebx)", {0xff, 0x93, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_CALL},
	{"jmp *slot@GOT(%ebx) (.plt.got)", {0xff, 0xa3, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_CALL},
	{"call *slot@GOT(%esi)", {0xff, 0x96, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_CALL},
	{"call *slot (non-PIC)", {0xff, 0x15, 0x08, 0x10, 0, 0}, 6, 2,
	 PLT_REF_CALL},
	{"mov slot@GOT(%ebx),%eax; call *%eax",
	 {0x8b, 0x83, 0x08, 0, 0, 0, 0xff, 0xd0}, 8, 2, PLT_REF_CALL},
	{"mov slot@GOT(%ebx),%ecx; jmp *%ecx",
	 {0x8b, 0x8b, 0x08, 0, 0, 0, 0xff, 0xe1}, 8, 2, PLT_REF_CALL},
	{"mov slot@GOT(%ebx),%eax; mov %eax,(%esp)",
	 {0x8b, 0x83, 0x08, 0, 0, 0, 0x89, 0x04, 0x24}, 9, 2, PLT_REF_LOAD},
	{"push slot@GOT(%ebx)", {0xff, 0xb3, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_LOAD},
	{"cmp slot@GOT(%ebx),%eax", {0x3b, 0x83, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_LOAD},
	{"mov slot,%eax (moffs32)", {0x00, 0xa1, 0x08, 0x10, 0, 0}, 6, 2,
	 PLT_REF_LOAD},
	{"mov $slot,%ecx", {0x00, 0xb9, 0x08, 0x10, 0, 0}, 6, 2,
	 PLT_REF_LOAD},
	{"push $slot", {0x00, 0x68, 0x08, 0x10, 0, 0}, 6, 2, PLT_REF_LOAD},
	{"js rel32: not a ModRM", {0x0f, 0x88, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_NONE},
	{"a rel32's ff, then mov $imm32,%edx: ff /7 is none",
	 {0xff, 0xba, 0x08, 0, 0, 0}, 6, 2, PLT_REF_NONE},
	{"call *8(%esp): SIB, disp8", {0xff, 0x54, 0x24, 0x08, 0, 0}, 6, 2,
	 PLT_REF_NONE},
	{"mov 0x8(%eax),%eax: disp8", {0x8b, 0x40, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_NONE},
	{"endbr32's fb, then mov $imm32,%ecx: sti takes no ModRM",
	 {0xfb, 0xb9, 0x08, 0, 0, 0}, 6, 2, PLT_REF_NONE},
	{"add $4,%al, then mov $imm32,%eax: 04 takes no ModRM",
	 {0x04, 0xb8, 0x08, 0, 0, 0}, 6, 2, PLT_REF_NONE},
	{"movd slot@GOT(%ebx),%xmm0 (66 0f 6e)",
	 {0x0f, 0x6e, 0x83, 0x08, 0, 0, 0}, 7, 3, PLT_REF_LOAD},
	{"les slot@GOT(%ebx),%eax (c4: a ModRM in 32-bit code)",
	 {0xc4, 0x83, 0x08, 0, 0, 0}, 6, 2, PLT_REF_LOAD},
};

/* The GOT base computed by PIC code, each at 0x100 with a thunk at
 * 0x120 (gcc) or popped (clang): the address after the call plus the
 * immediate, 0x1000 - 0x105 = 0xefb. */
static const struct base_row {
	const char *name;
	uint8_t code[12];
	uint8_t thunk; /* the thunk's ModRM: mov (%esp),%ebx or %eax */
	int found;
	unsigned reg; /* the register that holds the base */
} base_rows[] = {
	{"call __x86.get_pc_thunk.bx; add $imm32,%ebx (gcc)",
	 {0xe8, 0x1b, 0, 0, 0, 0x81, 0xc3, 0xfb, 0x0e, 0, 0}, 0x1c, 1, 3},
	{"call __x86.get_pc_thunk.ax; add $imm32,%eax (05)",
	 {0xe8, 0x1b, 0, 0, 0, 0x05, 0xfb, 0x0e, 0, 0}, 0x04, 1, 0},
	{"call 1f; 1: pop %ebx; add $imm32,%ebx (clang)",
	 {0xe8, 0, 0, 0, 0, 0x5b, 0x81, 0xc3, 0xfb, 0x0e, 0, 0}, 0x1c, 1, 3},
	{"call __x86.get_pc_thunk.bx; add $imm32,%ecx: another register",
	 {0xe8, 0x1b, 0, 0, 0, 0x81, 0xc1, 0xfb, 0x0e, 0, 0}, 0x1c, 0, 0},
	{"call a function that is no thunk",
	 {0xe8, 0x2b, 0, 0, 0, 0x81, 0xc3, 0xfb, 0x0e, 0, 0}, 0x1c, 0, 0},
};

int main(void)
{
	size_t n = sizeof rows / sizeof rows[0];
	size_t nb = sizeof base_rows / sizeof base_rows[0];
	tap_plan((int)(n + nb));
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		/* what plt.c's scan concludes of the slot at this offset */
		uintptr_t t = 0;
		int called = 0, loaded = 0;
		if (plt_arch_abs_load(r->code, r->at, &t) && t == SLOT)
			loaded = 1;
		int kind = plt_arch_ref(r->code, r->at, r->len, 0, GOT, &t);
		if (kind != PLT_REF_NONE && t == SLOT) {
			called |= kind == PLT_REF_CALL;
			loaded |= kind == PLT_REF_LOAD;
		}
		int got = loaded ? PLT_REF_LOAD : called ? PLT_REF_CALL
							 : PLT_REF_NONE;
		if (!tap_ok(got == r->kind, "%s", r->name))
			tap_diag("called %d, loaded %d", called, loaded);
	}
	for (size_t i = 0; i < nb; i++) {
		/* the row at 0x100 of a code block, the thunk (mov
		 * (%esp),%reg; ret) at 0x120 and a plain function at 0x130 */
		uint8_t code[0x140];
		memset(code, 0x90, sizeof code);
		memcpy(code + 0x100, base_rows[i].code, 12);
		memcpy(code + 0x120, "\x8b\x1c\x24\xc3", 4);
		memcpy(code + 0x130, "\x55\x89\xe5\xc3", 4);
		code[0x121] = base_rows[i].thunk;
		uintptr_t got = 0;
		unsigned reg = 8;
		int found = plt_arch_got_base(code, 0x100, sizeof code, 0, &got,
					      &reg);
		if (!tap_ok(found == base_rows[i].found &&
				    (!found || (got == 0x1000 &&
						reg == base_rows[i].reg)),
			    "%s", base_rows[i].name))
			tap_diag("found %d, base %#lx", found,
				 (unsigned long)got);
	}
	return tap_failed != 0;
}
