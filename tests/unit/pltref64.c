/* pltref64.c -- which bytes of x86-64 code plt.c takes for a reference to
 * a GOT slot, and for a call through it (lib/arch/x86_64/pltarch.h).  A
 * GLOB_DAT slot is redirected only when every reference to it is a call:
 * each row is an instruction as gcc, clang or the linkers lay it out
 * (bytes from objdump), scanned at its displacement as plt.c's
 * only_called scans, the displacement made to name the slot at 0x1008:
 * whether the slot is taken as called, loaded (which wins), or not
 * named. */
#include <stdint.h>
#include <string.h>

#include "arch/x86_64/pltarch.h"
#include "tap.h"

#define SLOT 0x1008u

static const struct row {
	const char *name;
	uint8_t code[16];
	size_t len, at; /* the displacement's offset */
	int kind;
} rows[] = {
	{"call *slot(%rip)", {0xff, 0x15}, 6, 2, PLT_REF_CALL},
	{"jmp *slot(%rip) (a tail call)", {0xff, 0x25}, 6, 2, PLT_REF_CALL},
	{"mov slot(%rip),%rax; call *%rax (clang -O0 -fno-plt)",
	 {0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xff, 0xd0, 0x90}, 10, 3,
	 PLT_REF_CALL},
	{"mov slot(%rip),%r11; call *%r11",
	 {0x4c, 0x8b, 0x1d, 0, 0, 0, 0, 0x41, 0xff, 0xd3}, 10, 3,
	 PLT_REF_CALL},
	{"mov slot(%rip),%rax; mov %rax,(%rsp)",
	 {0x48, 0x8b, 0x05, 0, 0, 0, 0, 0x48, 0x89, 0x04, 0x24}, 11, 3,
	 PLT_REF_LOAD},
	{"cmp slot(%rip),%rax", {0x48, 0x3b, 0x05}, 7, 3, PLT_REF_LOAD},
	{"push slot(%rip)", {0xff, 0x35}, 6, 2, PLT_REF_LOAD},
	{"movq $0,slot(%rip)", {0x48, 0xc7, 0x05, 0, 0, 0, 0, 0, 0, 0, 0},
	 11, 3, PLT_REF_LOAD},
	{"movq slot(%rip),%xmm0", {0xf3, 0x0f, 0x7e, 0x05}, 8, 4,
	 PLT_REF_LOAD},
	{"vmovq slot(%rip),%xmm0 (VEX)", {0xc5, 0xfa, 0x7e, 0x05}, 8, 4,
	 PLT_REF_LOAD},
	{"pshufb slot(%rip),%xmm0 (0f 38)", {0x66, 0x0f, 0x38, 0x00, 0x05},
	 9, 5, PLT_REF_LOAD},
	{"lea 0(%rbp,%rax),%rdi; mov $imm32,%ecx: 05 is a SIB byte",
	 {0x48, 0x8d, 0x7c, 0x05, 0, 0, 0, 0, 0}, 9, 4, PLT_REF_NONE},
	{"jl .+5, then four bytes: 05 is a rel8", {0x7c, 0x05}, 6, 2,
	 PLT_REF_NONE},
	{"mov 0x8(%rax),%eax: disp8", {0x8b, 0x40, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_NONE},
};

int main(void)
{
	size_t n = sizeof rows / sizeof rows[0];
	tap_plan((int)n);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		uint8_t code[sizeof r->code];
		memcpy(code, r->code, sizeof code);
		/* the displacement that names the slot from here */
		int32_t d = (int32_t)(SLOT - (r->at + 4));
		memcpy(code + r->at, &d, 4);
		uintptr_t t = 0;
		int kind = plt_arch_ref(code, r->at, r->len, 0, 0, &t);
		int got = kind != PLT_REF_NONE && t == SLOT ? kind
							 : PLT_REF_NONE;
		if (!tap_ok(got == r->kind, "%s", r->name))
			tap_diag("kind %d, target %#lx", kind,
				 (unsigned long)t);
	}
	return tap_failed != 0;
}
