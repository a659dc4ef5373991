/* pltref.c -- which bytes of i386 code plt.c takes for a reference to a
 * GOT slot, and for a call through it (lib/arch/i386/pltarch.h).  A
 * GLOB_DAT slot is redirected only when every reference to it is a call:
 * each row is an instruction as gcc, clang or the linkers lay it out
 * (bytes from objdump), scanned at its displacement as plt.c's
 * only_called scans, with the GOT (_GLOBAL_OFFSET_TABLE_) at 0x1000 and
 * the slot at 0x1008: whether the slot is taken as called, loaded (which
 * wins), or not named. */
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
};

int main(void)
{
	size_t n = sizeof rows / sizeof rows[0];
	tap_plan((int)n);
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
	return tap_failed != 0;
}
